/**
 * A container's environment as kubelet 1.20 builds it (makeEnvironmentVariables): envFrom first
 * (later sources override earlier ones), then env in declared order (each value may reference the
 * variables before it, envFrom's and the service links with `$(VAR)`), then the service link
 * variables no other source set. A missing source that is not optional throws with kube's message,
 * which the runtime shows as CreateContainerConfigError.
 */
import type { KubeObject } from '../../client/types';
import type { Pod } from '../types';
import { expand, mappingFor } from './expansion';
import { containerResourceValue, podFieldValue, withDefaultLimits } from './field-path';
import { selectServices, serviceEnvVars, MASTER_SERVICE_NAMESPACE } from './service-env';
import type { ObjectSources, Recorder } from './sources';

export interface EnvContext {
  sources: ObjectSources;
  recorder: Recorder;
  hostIP: string;
  /** the node's allocatable resources (the default of unset limits for resourceFieldRef) */
  allocatable: Record<string, unknown>;
}

interface KeyRef { name?: string; key?: string; optional?: boolean }
interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    resourceFieldRef?: { resource: string; divisor?: unknown; containerName?: string };
    configMapKeyRef?: KeyRef;
    secretKeyRef?: KeyRef;
  };
}
interface EnvFromSource { prefix?: string; configMapRef?: KeyRef; secretRef?: KeyRef }

/** kube 1.20's IsEnvVarName (C identifier plus '-' and '.') */
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** the `configmap "x" not found` error of kubelet's object managers */
export function notFoundError(kind: 'configmap' | 'secret', name: string): Error {
  return new Error(`${kind} "${name}" not found`);
}

export function decodeSecretData(secret: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((secret.data ?? {}) as Record<string, string>)) out[k] = Buffer.from(v, 'base64').toString();
  return out;
}

export async function makeEnvironmentVariables(ctx: EnvContext, pod: Pod, container: Record<string, unknown>, podIPs: string[]): Promise<{ name: string; value: string }[]> {
  const namespace = pod.metadata?.namespace ?? '';
  const enableServiceLinks = (pod.spec?.enableServiceLinks as boolean | undefined) ?? true;

  const serviceEnv = new Map<string, string>();
  const nsServices = enableServiceLinks ? await ctx.sources.listServices(namespace) : [];
  const masterServices = namespace === MASTER_SERVICE_NAMESPACE && enableServiceLinks ? nsServices : await ctx.sources.listServices(MASTER_SERVICE_NAMESPACE);
  for (const e of serviceEnvVars(selectServices(enableServiceLinks, nsServices, masterServices))) serviceEnv.set(e.name, e.value);

  const configMaps = new Map<string, Record<string, string> | undefined>();
  const secrets = new Map<string, Record<string, string> | undefined>();
  const configMapData = async (name: string): Promise<Record<string, string> | undefined> => {
    if (!configMaps.has(name)) {
      const cm = await ctx.sources.getConfigMap(namespace, name);
      configMaps.set(name, cm ? ((cm.data ?? {}) as Record<string, string>) : undefined);
    }
    return configMaps.get(name);
  };
  const secretData = async (name: string): Promise<Record<string, string> | undefined> => {
    if (!secrets.has(name)) {
      const s = await ctx.sources.getSecret(namespace, name);
      secrets.set(name, s ? decodeSecretData(s) : undefined);
    }
    return secrets.get(name);
  };

  const env = new Map<string, string>();
  for (const from of (container.envFrom ?? []) as EnvFromSource[]) {
    const ref = from.configMapRef ?? from.secretRef;
    if (!ref) continue;
    const kind = from.configMapRef ? 'configmap' : 'secret';
    const name = ref.name ?? '';
    const data = kind === 'configmap' ? await configMapData(name) : await secretData(name);
    if (!data) {
      if (ref.optional) continue;
      throw notFoundError(kind, name);
    }
    const invalid: string[] = [];
    for (const [key, value] of Object.entries(data)) {
      const k = (from.prefix ?? '') + key;
      if (!ENV_VAR_NAME.test(k)) invalid.push(k);
      else env.set(k, value);
    }
    if (invalid.length > 0) {
      invalid.sort();
      const what = kind === 'configmap' ? 'configMap' : 'secret';
      ctx.recorder.event(pod, 'Warning', 'InvalidEnvironmentVariableNames', `Keys [${invalid.join(', ')}] from the EnvFrom ${what} ${namespace}/${name} were skipped since they are considered invalid environment variable names.`);
    }
  }

  const mapping = mappingFor(env, serviceEnv);
  for (const v of (container.env ?? []) as EnvVar[]) {
    let value = v.value ?? '';
    const from = v.valueFrom;
    if (value !== '') {
      value = expand(value, mapping);
    } else if (from?.fieldRef) {
      value = podFieldValue(pod, from.fieldRef.fieldPath, ctx.hostIP, podIPs);
    } else if (from?.resourceFieldRef) {
      value = containerResourceValue(from.resourceFieldRef.resource, from.resourceFieldRef.divisor, withDefaultLimits(container, ctx.allocatable));
    } else if (from?.configMapKeyRef || from?.secretKeyRef) {
      const ref = (from.configMapKeyRef ?? from.secretKeyRef) as KeyRef;
      const isConfigMap = from.configMapKeyRef !== undefined;
      const name = ref.name ?? '';
      const key = ref.key ?? '';
      const data = isConfigMap ? await configMapData(name) : await secretData(name);
      if (!data) {
        if (ref.optional) continue;
        throw notFoundError(isConfigMap ? 'configmap' : 'secret', name);
      }
      if (!(key in data)) {
        if (ref.optional) continue;
        throw new Error(`couldn't find key ${key} in ${isConfigMap ? 'ConfigMap' : 'Secret'} ${namespace}/${name}`);
      }
      value = data[key];
    }
    // kube drops a service variable a declared one replaces, so the name appears once
    serviceEnv.delete(v.name);
    env.set(v.name, value);
  }

  const result = [...env].map(([name, value]) => ({ name, value }));
  for (const [name, value] of serviceEnv) if (!env.has(name)) result.push({ name, value });
  return result;
}
