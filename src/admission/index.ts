/**
 * Admission for the API server: the built-in plugin factories and the chain built from the
 * enabled names. The webhook plugins (src/admission/webhook) are registered by name over the
 * placeholders by whoever assembles the server: `plugins.register('MutatingAdmissionWebhook', f)`.
 */
import type { Scheme } from '../api/scheme';
import type { Authorizer } from '../api/reviews/authorizer';
import { AdmissionPlugins } from './plugins';
import type { AdmissionChain } from './chain';
import type { AdmissionFlags } from './context';
import { AdmissionObjects, DEFAULT_ADMISSION_FLAGS } from './context';
import { namespaceAutoProvision, namespaceExists, namespaceLifecycle } from './plugins/namespace-lifecycle';
import { alwaysAdmit, alwaysDeny } from './plugins/always';
import { serviceAccount } from './plugins/service-account';
import { limitRanger } from './plugins/limit-ranger';
import { resourceQuota } from './plugins/resource-quota';
import { priority } from './plugins/priority';
import { defaultTolerationSeconds, taintNodesByCondition } from './plugins/tolerations';
import { defaultStorageClass, persistentVolumeClaimResize, storageObjectInUseProtection } from './plugins/storage';
import { alwaysPullImages, defaultIngressClass, securityContextDeny } from './plugins/pod-policies';
import { runtimeClass } from './plugins/runtime-class';
import { denyServiceExternalIPs, extendedResourceToleration } from './plugins/service-pod-extras';
import { certificateApproval, certificateSigning, certificateSubjectRestriction } from './plugins/certificates';
import { podNodeSelector } from './plugins/pod-node-selector';
import { podTolerationRestriction } from './plugins/pod-toleration-restriction';
import { eventRateLimit } from './plugins/event-rate-limit';
import { ownerReferencesPermissionEnforcement } from './plugins/owner-references';
import { limitPodHardAntiAffinityTopology } from './plugins/anti-affinity-topology';
import { imagePolicyWebhook } from './plugins/image-policy-webhook';
import { podSecurityPolicy } from './plugins/pod-security-policy';
import { nodeRestriction } from './plugins/node-restriction';
import { denyEscalatingExec, denyExecOnPrivileged } from './plugins/exec-restrictions';

export { AdmissionPlugins, enabledAdmissionPlugins, DEFAULT_ENABLED_ADMISSION_PLUGINS, ORDERED_ADMISSION_PLUGINS } from './plugins';
export type { AdmissionPluginFactory } from './plugins';
export { loadAdmissionConfig } from './config-file';
import { AdmissionConfigurations } from './config-file';

/** every plugin Ballast implements; known names left out admit everything */
export function builtinAdmissionPlugins(): AdmissionPlugins {
  return new AdmissionPlugins()
    .register('AlwaysAdmit', alwaysAdmit)
    .register('AlwaysDeny', alwaysDeny)
    .register('NamespaceLifecycle', namespaceLifecycle)
    .register('NamespaceExists', namespaceExists)
    .register('NamespaceAutoProvision', namespaceAutoProvision)
    .register('ServiceAccount', serviceAccount)
    .register('LimitRanger', limitRanger)
    .register('ResourceQuota', (ctx) => resourceQuota(ctx))
    .register('Priority', priority)
    .register('DefaultTolerationSeconds', defaultTolerationSeconds)
    .register('TaintNodesByCondition', taintNodesByCondition)
    .register('DefaultStorageClass', defaultStorageClass)
    .register('StorageObjectInUseProtection', storageObjectInUseProtection)
    .register('PersistentVolumeClaimResize', persistentVolumeClaimResize)
    .register('DefaultIngressClass', defaultIngressClass)
    .register('AlwaysPullImages', alwaysPullImages)
    .register('SecurityContextDeny', securityContextDeny)
    .register('RuntimeClass', runtimeClass)
    .register('DenyServiceExternalIPs', denyServiceExternalIPs)
    .register('ExtendedResourceToleration', extendedResourceToleration)
    .register('CertificateApproval', certificateApproval)
    .register('CertificateSigning', certificateSigning)
    .register('CertificateSubjectRestriction', certificateSubjectRestriction)
    .register('PodNodeSelector', podNodeSelector)
    .register('PodTolerationRestriction', podTolerationRestriction)
    .register('EventRateLimit', (ctx) => eventRateLimit(ctx))
    .register('OwnerReferencesPermissionEnforcement', ownerReferencesPermissionEnforcement)
    .register('LimitPodHardAntiAffinityTopology', limitPodHardAntiAffinityTopology)
    .register('ImagePolicyWebhook', imagePolicyWebhook)
    .register('PodSecurityPolicy', podSecurityPolicy)
    .register('NodeRestriction', nodeRestriction)
    .register('DenyEscalatingExec', denyEscalatingExec)
    .register('DenyExecOnPrivileged', denyExecOnPrivileged);
}

export interface AdmissionSetup {
  scheme: Scheme;
  /** the enabled plugin names (enabledAdmissionPlugins) */
  enabled: readonly string[];
  /** plugin configurations by name (loadAdmissionConfig) */
  configurations?: ReadonlyMap<string, unknown>;
  authorizer?: Authorizer;
  flags?: AdmissionFlags;
  /** default: builtinAdmissionPlugins() */
  plugins?: AdmissionPlugins;
}

/** the chain, and the objects handle to bind to the registry built with it */
export function buildAdmission(setup: AdmissionSetup): { chain: AdmissionChain; objects: AdmissionObjects } {
  const objects = new AdmissionObjects(setup.scheme);
  const flags = setup.flags ?? DEFAULT_ADMISSION_FLAGS;
  const chain = (setup.plugins ?? builtinAdmissionPlugins()).build(setup.enabled, (name) => ({
    objects,
    authorizer: setup.authorizer,
    flags,
    configuration: setup.configurations?.get(name),
    configurationFile: setup.configurations instanceof AdmissionConfigurations ? setup.configurations.sources.get(name) : undefined,
  }));
  return { chain, objects };
}
