/**
 * In-memory ObjectSources for node agent env and volume tests: objects set per test, token
 * requests recorded and answered with a numbered token.
 */
import type { KubeObject } from '../../src/client/types';
import type { ObjectSources, Recorder, TokenRequestSpec } from '../../src/nodeagent/env/sources';

export class FakeObjectSources implements ObjectSources {
  configMaps = new Map<string, KubeObject>();
  secrets = new Map<string, KubeObject>();
  services: KubeObject[] = [];
  claims = new Map<string, KubeObject>();
  volumes = new Map<string, KubeObject>();
  tokenRequests: { namespace: string; serviceAccount: string; spec: TokenRequestSpec; at: number }[] = [];
  now: () => number = Date.now;

  configMap(namespace: string, name: string, data: Record<string, string>, binaryData?: Record<string, string>): void {
    this.configMaps.set(`${namespace}/${name}`, { metadata: { namespace, name }, data, ...(binaryData ? { binaryData } : {}) });
  }

  /** values are given as plain text and stored base64-encoded, as the API returns them */
  secret(namespace: string, name: string, data: Record<string, string>): void {
    const enc = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
    this.secrets.set(`${namespace}/${name}`, { metadata: { namespace, name }, data: enc });
  }

  service(namespace: string, name: string, clusterIP: string, ports: { name?: string; port: number; protocol?: string }[]): void {
    this.services.push({ metadata: { namespace, name }, spec: { clusterIP, ports } });
  }

  async getConfigMap(namespace: string, name: string) {
    return this.configMaps.get(`${namespace}/${name}`);
  }
  async getSecret(namespace: string, name: string) {
    return this.secrets.get(`${namespace}/${name}`);
  }
  async listServices(namespace: string) {
    return this.services.filter((s) => s.metadata?.namespace === namespace);
  }
  async getPersistentVolumeClaim(namespace: string, name: string) {
    return this.claims.get(`${namespace}/${name}`);
  }
  async getPersistentVolume(name: string) {
    return this.volumes.get(name);
  }
  async createToken(namespace: string, serviceAccount: string, spec: TokenRequestSpec) {
    const at = this.now();
    this.tokenRequests.push({ namespace, serviceAccount, spec, at });
    return { token: `token-${this.tokenRequests.length}`, expirationTimestamp: at + spec.expirationSeconds * 1000 };
  }
}

export class FakeRecorder implements Recorder {
  events: { kind?: string; name?: string; type: string; reason: string; message: string }[] = [];
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ kind: obj.kind, name: obj.metadata?.name, type, reason, message });
  }
}
