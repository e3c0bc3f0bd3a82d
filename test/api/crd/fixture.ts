/**
 * A registry fixture with the CRD controllers running: `crs.registry` is what the HTTP layer would
 * call. Helpers build CRDs and wait for them to be served.
 */
import type { Test } from 'tap';
import type { KindDefinition, KubeObject } from '../../../src/api/kind';
import { customResources } from '../../../src/api/crd';
import type { CustomResources } from '../../../src/api/crd';
import { makeFixture } from '../../helpers/registry-fixture';
import type { Fixture, StoreKind } from '../../helpers/registry-fixture';

export interface CrdFixture extends Fixture {
  crs: CustomResources;
  crdKind: KindDefinition;
  /** create a CRD (v1 object) and wait until its first served version is in the Scheme */
  createCrd(crd: KubeObject): Promise<KubeObject>;
  /** the served kind of a custom resource, waiting up to 3 s for it */
  waitKind(group: string, version: string, resource: string): Promise<KindDefinition>;
  waitGone(group: string, version: string, resource: string): Promise<void>;
}

export async function crdFixture(t: Test, store: StoreKind = 'memory', start = true): Promise<CrdFixture> {
  const f = await makeFixture(store);
  const crs = customResources({ registry: f.registry, scheme: f.scheme, retryMs: 20, cleanupWaitMs: 2000 });
  if (start) await crs.start();
  const crdKind = f.scheme.byResource('apiextensions.k8s.io', 'v1', 'customresourcedefinitions')!;
  t.teardown(async () => {
    crs.close();
    await f.close();
  });
  const waitKind = async (group: string, version: string, resource: string) => {
    const deadline = Date.now() + 3000;
    for (;;) {
      const k = f.scheme.byResource(group, version, resource);
      if (k) return k;
      if (Date.now() > deadline) throw new Error(`${group}/${version}/${resource} not served`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const waitGone = async (group: string, version: string, resource: string) => {
    const deadline = Date.now() + 5000;
    while (f.scheme.byResource(group, version, resource)) {
      if (Date.now() > deadline) throw new Error(`${group}/${version}/${resource} still served`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  return {
    ...f,
    crs,
    crdKind,
    waitKind,
    waitGone,
    async createCrd(crd) {
      const r = await crs.registry.create({ kind: crdKind }, crd, { dryRun: false });
      const spec = crd.spec as { group: string; names: { plural: string }; versions: Array<{ name: string; served: boolean }> };
      const served = spec.versions.find((v) => v.served);
      if (served) await waitKind(spec.group, served.name, spec.names.plural);
      return r.object;
    },
  };
}

export const write = { dryRun: false };

/** the CronTab CRD of kube's documentation, with what the tests need */
export function cronTabCrd(extra: { scope?: string; versions?: unknown[]; conversion?: unknown } = {}): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: extra.scope ?? 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: extra.versions ?? [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  required: ['cronSpec'],
                  properties: {
                    cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
                    image: { type: 'string' },
                    replicas: { type: 'integer', minimum: 1, maximum: 10, default: 1 },
                    mode: { type: 'string', enum: ['fast', 'slow'] },
                    port: { 'x-kubernetes-int-or-string': true },
                    note: { type: 'string', nullable: true },
                    tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                    free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                    template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
              },
            },
          },
          subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
          additionalPrinterColumns: [
            { name: 'Spec', type: 'string', jsonPath: '.spec.cronSpec' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
      ...(extra.conversion ? { conversion: extra.conversion } : {}),
    },
  };
}

export function cronTab(name: string, spec: Record<string, unknown> = { cronSpec: '* * * * */5', image: 'my-cron' }, namespace = 'default', apiVersion = 'stable.example.com/v1'): KubeObject {
  return { apiVersion, kind: 'CronTab', metadata: { name, namespace }, spec };
}
