/**
 * kube's ConnectAdmission: before a connect subresource (pods/exec, attach, portforward, proxy;
 * nodes/proxy; services/proxy) is answered, the admission chain runs with operation CONNECT and the
 * request's options object (PodExecOptions, PodAttachOptions, ...) read from the query as kube
 * decodes it. Admission plugins and validating webhooks with CONNECT rules may refuse it there.
 */
import { errors } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import type { Admission, AdmissionAttributes } from '../../admission/types';
import { writeWarnings } from '../respond';
import type { ResourceRequest } from './types';

/** Go's strconv.ParseBool, as kube's query decoding uses it */
function parseBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax for ${name}`);
}

/** the options object kube decodes from the query of a connect request, or undefined when it has none */
export function connectOptions(kind: string | undefined, query: URLSearchParams): KubeObject | undefined {
  if (!kind) return undefined;
  const options: Record<string, unknown> = { kind, apiVersion: 'v1' };
  const streams = () => {
    // kube's defaults: output streams on unless the query says otherwise
    for (const [key, fallback] of [['stdin', false], ['stdout', true], ['stderr', true], ['tty', false]] as const) {
      const value = query.get(key);
      const on = value === null ? fallback : parseBool(key, value);
      if (on) options[key] = true;
    }
    const container = query.get('container');
    if (container) options.container = container;
  };
  switch (kind) {
    case 'PodExecOptions':
      streams();
      options.command = query.getAll('command');
      break;
    case 'PodAttachOptions':
      streams();
      break;
    case 'PodPortForwardOptions': {
      const ports = query.getAll('ports').flatMap((p) => p.split(','));
      if (ports.length > 0) {
        options.ports = ports.map((p) => {
          const n = Number(p);
          if (!Number.isInteger(n) || n < 0 || n > 2147483647) throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(p)}: invalid syntax`);
          return n;
        });
      }
      break;
    }
    default: {
      // PodProxyOptions, NodeProxyOptions, ServiceProxyOptions
      const path = query.get('path');
      if (path) options.path = path;
    }
  }
  return options as KubeObject;
}

/** both admission phases on the CONNECT request; throws the first refusal */
export async function admitConnect(r: ResourceRequest, admission: Admission | undefined): Promise<void> {
  if (!admission || !r.subresource) return;
  const warnings: string[] = [];
  const attributes: AdmissionAttributes = {
    operation: 'CONNECT',
    kind: r.kind,
    subresource: r.subresource,
    namespace: r.kind.namespaced ? r.target.namespace ?? '' : '',
    name: r.target.name ?? '',
    object: connectOptions(r.declared?.kind?.kind, r.ctx.state.query),
    dryRun: false,
    user: r.ctx.state.user,
    warnings,
  };
  try {
    await admission.admit(attributes);
    await admission.validate(attributes);
  } finally {
    // webhooks' warnings go out as Warning headers, allowed or not
    writeWarnings(r.ctx, warnings);
  }
}
