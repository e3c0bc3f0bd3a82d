/**
 * The admission plugins Ballast knows, kube's order they run in, and the set enabled by default
 * (kube-apiserver 1.20's). Which plugins run is the default set plus --enable-admission-plugins
 * minus --disable-admission-plugins; the order never depends on the flags. A known name without a
 * factory (PersistentVolumeLabel, ...) runs as a plugin that admits everything.
 */
import { FlagError } from '../options/types';
import type { Admission } from './types';
import type { AdmissionPluginContext } from './context';
import { AdmissionChain } from './chain';

/** kube's AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go), as named in spec 2 */
export const ORDERED_ADMISSION_PLUGINS: readonly string[] = Object.freeze([
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny',
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurityPolicy',
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'DenyEscalatingExec',
  'DenyExecOnPrivileged',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  // kube: webhooks, quota and AlwaysDeny go last
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
]);

/**
 * kube 1.20's DefaultOnAdmissionPlugins. StorageObjectInUseProtection's finalizers are taken off by
 * the pvc-protection and pv-protection controllers of the controller manager.
 */
export const DEFAULT_ENABLED_ADMISSION_PLUGINS: readonly string[] = Object.freeze([
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
]);

export type AdmissionPluginFactory = (context: AdmissionPluginContext) => Admission;

/** a plugin that lets everything through (AlwaysAdmit, and names whose behaviour has no meaning here yet) */
export const admitsEverything: Admission = Object.freeze({ admit: async () => undefined, validate: async () => undefined });

/** the plugin factories by name; only names of ORDERED_ADMISSION_PLUGINS can be registered */
export class AdmissionPlugins {
  readonly #factories = new Map<string, AdmissionPluginFactory>();

  /** install (or replace) the factory of a known plugin name */
  register(name: string, factory: AdmissionPluginFactory): this {
    if (!ORDERED_ADMISSION_PLUGINS.includes(name)) throw new Error(`admission plugin "${name}" is not a known plugin name`);
    this.#factories.set(name, factory);
    return this;
  }

  has(name: string): boolean {
    return this.#factories.has(name);
  }

  /** the chain of the enabled plugins, in kube's order, each built with its own context */
  build(enabled: readonly string[], contextFor: (name: string) => AdmissionPluginContext): AdmissionChain {
    const on = new Set(enabled);
    return new AdmissionChain(
      ORDERED_ADMISSION_PLUGINS.filter((name) => on.has(name)).map((name) => ({
        name,
        plugin: this.#factories.get(name)?.(contextFor(name)) ?? admitsEverything,
      })),
    );
  }
}

/** kube's AdmissionOptions.Validate and enabledPluginNames: default + enable - disable, unknown names refused */
export function enabledAdmissionPlugins(enable: readonly string[], disable: readonly string[]): string[] {
  for (const [flag, names] of [['enable-admission-plugins', enable], ['disable-admission-plugins', disable]] as const) {
    for (const name of names) {
      if (!ORDERED_ADMISSION_PLUGINS.includes(name)) throw new FlagError(`${flag} plugin "${name}" is unknown`);
    }
  }
  const both = enable.filter((name) => disable.includes(name));
  if (both.length) throw new FlagError(`[${both.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  const on = new Set([...DEFAULT_ENABLED_ADMISSION_PLUGINS, ...enable]);
  for (const name of disable) on.delete(name);
  return ORDERED_ADMISSION_PLUGINS.filter((name) => on.has(name));
}
