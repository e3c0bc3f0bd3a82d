/**
 * Controller references and kube's ControllerRefManager: a controller claims the objects its
 * selector matches, adopting orphans (adding itself as the controller owner) and releasing the
 * ones it owns that no longer match (removing its reference). It never touches objects another
 * controller owns, and adopts nothing while it is being deleted.
 */
import { isNotFound } from '../../client/errors';
import type { RestClient } from '../../client/rest-client';
import type { KubeObject, OwnerReference, ResourceRef } from '../../client/types';
import type { LabelSelector } from '../../api/selectors';

export function controllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata?.ownerReferences?.find((r) => r.controller === true);
}

/** the reference a controller puts on what it creates (metav1.NewControllerRef) */
export function newControllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '',
    kind: owner.kind ?? '',
    name: owner.metadata?.name ?? '',
    uid: owner.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

export interface ClaimOptions {
  client: RestClient;
  owner: KubeObject;
  selector: LabelSelector;
  /** the kind of the claimed objects */
  ref: ResourceRef;
  /**
   * kube's RecheckDeletionTimestamp: read the owner fresh from the API before the first adoption
   * and refuse if it is gone, replaced (other uid) or being deleted
   */
  canAdopt: () => Promise<void>;
}

/**
 * ClaimObjects: the candidates this owner controls after adopting and releasing. Adoption and
 * release are strategic-merge patches (as kube's), so they do not race other fields' writers.
 */
export async function claimObjects<T extends KubeObject>(o: ClaimOptions, candidates: readonly T[]): Promise<T[]> {
  const uid = o.owner.metadata?.uid;
  const claimed: T[] = [];
  let adoptionChecked: Promise<void> | undefined;
  const errors: unknown[] = [];
  for (const obj of candidates) {
    const ref = controllerOf(obj);
    const matches = o.selector.matches(obj.metadata?.labels);
    try {
      if (ref) {
        if (ref.uid !== uid) continue; // someone else's
        if (matches) {
          claimed.push(obj);
          continue;
        }
        // ours but no longer selected: release (ignored when we are being deleted, kube lets GC do it)
        if (o.owner.metadata?.deletionTimestamp) continue;
        await release(o, obj);
        continue;
      }
      // an orphan: adopt it if it matches and neither it nor we are going away
      if (!matches || o.owner.metadata?.deletionTimestamp || obj.metadata?.deletionTimestamp) continue;
      adoptionChecked ??= o.canAdopt();
      await adoptionChecked;
      const adopted = await adopt(o, obj);
      if (adopted) claimed.push(adopted as T);
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length) throw errors[0];
  return claimed;
}

async function adopt(o: ClaimOptions, obj: KubeObject): Promise<KubeObject | undefined> {
  const ownerRef = newControllerRef(o.owner);
  const patch = {
    metadata: {
      ownerReferences: [ownerRef],
      uid: obj.metadata?.uid,
    },
  };
  try {
    return await o.client.patch(o.ref, obj.metadata?.namespace, obj.metadata?.name ?? '', 'strategic', patch);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

async function release(o: ClaimOptions, obj: KubeObject): Promise<void> {
  const patch = {
    metadata: {
      ownerReferences: [{ $patch: 'delete', uid: o.owner.metadata?.uid }],
      uid: obj.metadata?.uid,
    },
  };
  try {
    await o.client.patch(o.ref, obj.metadata?.namespace, obj.metadata?.name ?? '', 'strategic', patch);
  } catch (err) {
    // gone, or changed under us (the uid precondition): nothing to release
    if (isNotFound(err) || (err as { code?: number }).code === 422) return;
    throw err;
  }
}

/** a canAdopt that reads the owner fresh and refuses when it is gone, replaced or being deleted */
export function recheckOwner(client: RestClient, ref: ResourceRef, owner: KubeObject): () => Promise<void> {
  return async () => {
    const fresh = await client.get(ref, owner.metadata?.namespace, owner.metadata?.name ?? '');
    if (fresh.metadata?.uid !== owner.metadata?.uid) {
      throw new Error(`original ${owner.kind} ${owner.metadata?.namespace}/${owner.metadata?.name} is gone: got uid ${fresh.metadata?.uid}, wanted ${owner.metadata?.uid}`);
    }
    if (fresh.metadata?.deletionTimestamp) {
      throw new Error(`${owner.kind} ${owner.metadata?.namespace}/${owner.metadata?.name} has just been deleted at ${fresh.metadata.deletionTimestamp}`);
    }
  };
}
