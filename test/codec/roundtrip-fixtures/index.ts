/**
 * Round-trip fixtures of the groups added after the first 21 kinds, one file per group, merged
 * here: one realistic object per served kind, keyed by `apiVersion/Kind` (test/codec/roundtrip.test.ts).
 */
export type Fixtures = Record<string, Record<string, unknown>>;

/** the shared metadata of fixtures: the values kube keeps in every field of ObjectMeta */
export const fixtureMeta = (name: string, namespace?: string) => ({
  name,
  ...(namespace ? { namespace } : {}),
  uid: '7c1f0a52-3a3e-4f6b-9d0e-1b2c3d4e5f60',
  resourceVersion: '42',
  creationTimestamp: '2024-05-01T10:00:00Z',
  labels: { app: 'web' },
  annotations: { note: 'round trip' },
});

import { apiregistrationFixtures } from './apiregistration';

export const groupFixtures: Fixtures = {
  ...apiregistrationFixtures,
};
