/** Small object builders for the end-to-end tests (sent to kubectl as JSON on stdin). */

export function namespace(name: string): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
}

export function configMap(name: string, ns: string, data: Record<string, string>, labels: Record<string, string> = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data });
}

export function deployment(name: string, ns: string, opts: { replicas?: number; image?: string } = {}): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: ns, labels: { app: name } },
    spec: {
      replicas: opts.replicas ?? 1,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'main', image: opts.image ?? 'nginx:1.25' }] },
      },
    },
  });
}

/** the shapes the tests read back */
export interface Obj {
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    resourceVersion?: string;
    uid?: string;
  };
  data?: Record<string, string>;
  spec?: {
    replicas?: number;
    template?: { spec: { containers: { name: string; image: string }[] } };
    schedule?: string;
  };
}

export interface ObjList {
  kind: string;
  items: Obj[];
}
