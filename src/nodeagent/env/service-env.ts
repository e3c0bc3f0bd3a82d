/**
 * Docker-link style variables for services (kube's pkg/kubelet/envvars FromServices), and which
 * services a pod sees (kubelet's getServiceEnvVarMap).
 */
import type { KubeObject } from '../../client/types';

interface ServicePort { name?: string; port?: number; protocol?: string }
interface ServiceSpec { clusterIP?: string; ports?: ServicePort[] }

/** the master services of the master namespace every pod sees, whatever enableServiceLinks says */
export const MASTER_SERVICE_NAMESPACE = 'default';
const MASTER_SERVICES = new Set(['kubernetes']);

const envName = (s: string): string => s.toUpperCase().replace(/-/g, '_');

function isServiceIPSet(svc: KubeObject): boolean {
  const ip = (svc.spec as ServiceSpec | undefined)?.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** the variables of services, in kube's order per service */
export function serviceEnvVars(services: KubeObject[]): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const svc of services) {
    if (!isServiceIPSet(svc)) continue;
    const spec = svc.spec as ServiceSpec;
    const ip = spec.clusterIP as string;
    const prefix = envName(svc.metadata?.name ?? '');
    const ports = spec.ports ?? [];
    out.push({ name: `${prefix}_SERVICE_HOST`, value: ip });
    if (ports.length > 0) out.push({ name: `${prefix}_SERVICE_PORT`, value: String(ports[0].port ?? 0) });
    for (const p of ports) {
      if (p.name) out.push({ name: `${prefix}_SERVICE_PORT_${envName(p.name)}`, value: String(p.port ?? 0) });
    }
    ports.forEach((p, i) => {
      const protocol = p.protocol || 'TCP';
      const url = `${protocol.toLowerCase()}://${hostPort(ip, p.port ?? 0)}`;
      const portPrefix = `${prefix}_PORT_${p.port ?? 0}_${protocol.toUpperCase()}`;
      if (i === 0) out.push({ name: `${prefix}_PORT`, value: url });
      out.push({ name: portPrefix, value: url });
      out.push({ name: `${portPrefix}_PROTO`, value: protocol.toLowerCase() });
      out.push({ name: `${portPrefix}_PORT`, value: String(p.port ?? 0) });
      out.push({ name: `${portPrefix}_ADDR`, value: ip });
    });
  }
  return out;
}

/**
 * kubelet's getServiceEnvVarMap: the pod's namespace's services when enableServiceLinks, and the
 * `kubernetes` service of `default` always (a same-named service of the pod's namespace wins).
 */
export function selectServices(enableServiceLinks: boolean, namespaceServices: KubeObject[], masterNamespaceServices: KubeObject[]): KubeObject[] {
  const byName = new Map<string, KubeObject>();
  if (enableServiceLinks) {
    for (const svc of namespaceServices) if (isServiceIPSet(svc)) byName.set(svc.metadata?.name ?? '', svc);
  }
  for (const svc of masterNamespaceServices) {
    const name = svc.metadata?.name ?? '';
    if (isServiceIPSet(svc) && MASTER_SERVICES.has(name) && !byName.has(name)) byName.set(name, svc);
  }
  return [...byName.values()].sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
}
