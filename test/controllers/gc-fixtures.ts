/**
 * What the garbage collector and namespace tests build by hand: ConfigMaps with owner references,
 * a small CRD (Widget) and the waits around them.
 */
import { isNotFound } from '../../src/client/errors';
import { RESOURCES } from '../../src/client/resources';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject, OwnerReference, ResourceRef } from '../../src/client/types';
import { waitFor } from '../e2e/harness';

export const WIDGETS: ResourceRef = Object.freeze({ group: 'gc.example.com', version: 'v1', resource: 'widgets', kind: 'Widget', namespaced: true });

/** a namespaced CRD `widgets.gc.example.com`, established and served */
export async function createWidgetCrd(client: RestClient): Promise<void> {
  await client.create(RESOURCES.customResourceDefinitions, undefined, {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.gc.example.com' },
    spec: {
      group: 'gc.example.com',
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    },
  });
  await waitFor('the Widget resource served', async () => {
    await client.list(WIDGETS, 'default');
    return true;
  });
}

export function ownerRef(owner: KubeObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: owner.apiVersion ?? 'v1', kind: owner.kind ?? 'ConfigMap', name: owner.metadata!.name!, uid: owner.metadata!.uid!, ...extra };
}

export async function configMap(client: RestClient, namespace: string, name: string, meta: Record<string, unknown> = {}): Promise<KubeObject> {
  const cm = await client.create(RESOURCES.configMaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...meta }, data: { k: name } });
  cm.apiVersion ??= 'v1';
  cm.kind ??= 'ConfigMap';
  return cm;
}

/** the object, or undefined once it is gone */
export async function getOrGone(client: RestClient, ref: ResourceRef, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(ref, namespace, name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

export async function waitGone(client: RestClient, ref: ResourceRef, namespace: string | undefined, name: string, timeoutMs = 30_000): Promise<void> {
  await waitFor(`${ref.resource} ${namespace ?? ''}/${name} gone`, async () => (await getOrGone(client, ref, namespace, name)) === undefined, timeoutMs);
}
