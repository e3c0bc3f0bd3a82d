/**
 * Provisioning for a claim that found no volume (kube's provisionClaim and
 * provisionClaimOperation): external provisioners are told through the claim's
 * storage-provisioner annotation and left to work; host-path is the one in-tree plugin here.
 */
import { isAlreadyExists } from '../../../client/errors';
import type { EventRecorder } from '../../../client/events';
import type { SharedInformer } from '../../../client/informer';
import { RESOURCES } from '../../../client/resources';
import type { KubeObject } from '../../../client/types';
import type { ControllerContext } from '../../types';
import { ANN_STORAGE_PROVISIONER, annotation, claimClass, claimSpec, copyOf, withAnnotation } from '../volume-util';
import { HOST_PATH_PLUGIN, provisionHostPath } from './host-path';

/** the reference a volume keeps to its claim */
export function claimRefOf(claim: KubeObject): Record<string, unknown> {
  const m = claim.metadata ?? {};
  return { kind: 'PersistentVolumeClaim', namespace: m.namespace, name: m.name, uid: m.uid, apiVersion: 'v1', resourceVersion: m.resourceVersion };
}

export interface ClaimProvisionerOptions {
  ctx: ControllerContext;
  recorder: EventRecorder;
  classes: SharedInformer;
  volumes: SharedInformer;
}

export class ClaimProvisioner {
  readonly #o: ClaimProvisionerOptions;

  constructor(o: ClaimProvisionerOptions) {
    this.#o = o;
  }

  /** kube's provisionClaim: in-tree (host-path) or external provisioning through the claim's class */
  async provision(claim: KubeObject): Promise<KubeObject> {
    if (!this.#o.ctx.settings.enableDynamicProvisioning) return claim;
    const className = claimClass(claim);
    const cls = this.#o.classes.store.getObject(undefined, className) as (KubeObject & { provisioner?: string }) | undefined;
    if (!cls) {
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `storageclass.storage.k8s.io "${className}" not found`);
      return claim;
    }
    const provisioner = cls.provisioner ?? '';
    // kube's in-tree plugins are named kubernetes.io/...; of them Ballast has host-path only
    const inTree = provisioner.startsWith('kubernetes.io/');
    if (inTree && provisioner !== HOST_PATH_PLUGIN) {
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `no volume plugin matched name: ${provisioner}`);
      return claim;
    }
    claim = await this.#setClaimProvisioner(claim, provisioner);
    if (inTree && !this.#o.ctx.settings.enableHostPathProvisioner) {
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `Failed to create provisioner: Provisioning in volume plugin "${HOST_PATH_PLUGIN}" is disabled`);
      return claim;
    }
    if (!inTree) {
      this.#o.recorder.event(claim, 'Normal', 'ExternalProvisioning', `waiting for a volume to be created, either by external provisioner "${provisioner}" or manually created by system administrator`);
      return claim;
    }
    const pvName = `pvc-${claim.metadata?.uid}`;
    if (this.#o.volumes.store.getObject(undefined, pvName)) return claim; // provisioned already; binding follows
    const selector = claimSpec(claim).selector;
    if (selector && (Object.keys(selector.matchLabels ?? {}).length || (selector.matchExpressions ?? []).length)) {
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `Failed to provision volume with StorageClass "${className}": claim.Spec.Selector is not supported for dynamic provisioning`);
      return claim;
    }
    const mountOptions = (cls as { mountOptions?: string[] }).mountOptions ?? [];
    if (mountOptions.length) {
      // host-path takes no mount options; validation would refuse the volume anyway
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `Mount options are not supported by the provisioner but StorageClass "${className}" has mount options [${mountOptions.join(' ')}]`);
      return claim;
    }
    let volume: KubeObject;
    try {
      volume = await provisionHostPath({ pvName, claim, storageClass: cls, claimRef: claimRefOf(claim) });
    } catch (err) {
      this.#o.recorder.event(claim, 'Warning', 'ProvisioningFailed', `Failed to provision volume with StorageClass "${className}": ${(err as Error).message}`);
      return claim;
    }
    try {
      await this.#o.ctx.client.create(RESOURCES.persistentVolumes, undefined, volume);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
    this.#o.recorder.event(claim, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${pvName} using ${HOST_PATH_PLUGIN}`);
    return claim;
  }

  async #setClaimProvisioner(claim: KubeObject, provisioner: string): Promise<KubeObject> {
    if (annotation(claim, ANN_STORAGE_PROVISIONER) === provisioner) return claim;
    return this.#o.ctx.client.update(RESOURCES.persistentVolumeClaims, withAnnotation(copyOf(claim), ANN_STORAGE_PROVISIONER, provisioner));
  }
}
