/**
 * Pods for the endpoint controller tests, played by the test as a node would: created already on
 * a node, then given an IP and a Ready condition (or not) through the status subresource.
 */
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject } from '../../src/client/types';

export interface TestPodOptions {
  labels: Record<string, string>;
  nodeName?: string;
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  hostname?: string;
  subdomain?: string;
}

export function testPod(name: string, o: TestPodOptions): KubeObject {
  const spec: Record<string, unknown> = { containers: [{ name: 'c', image: 'busybox', ports: o.ports ?? [] }] };
  if (o.nodeName) spec.nodeName = o.nodeName;
  if (o.hostname) spec.hostname = o.hostname;
  if (o.subdomain) spec.subdomain = o.subdomain;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: o.labels }, spec };
}

/** the node's report: Running with `ip`, Ready or not */
export async function setPodState(client: RestClient, namespace: string, name: string, ip: string, ready: boolean): Promise<KubeObject> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return client.patch(RESOURCES.pods, namespace, name, 'merge', {
    status: {
      phase: 'Running',
      podIP: ip,
      podIPs: [{ ip }],
      conditions: [
        { type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now },
        { type: 'ContainersReady', status: ready ? 'True' : 'False', lastTransitionTime: now },
      ],
    },
  }, { subresource: 'status' });
}

export async function createRunningPod(client: RestClient, namespace: string, name: string, ip: string, o: TestPodOptions & { ready?: boolean }): Promise<KubeObject> {
  await client.create(RESOURCES.pods, namespace, testPod(name, o));
  return setPodState(client, namespace, name, ip, o.ready ?? true);
}
