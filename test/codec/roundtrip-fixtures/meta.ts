/** what every group's fixture file shares: the Fixtures table type and the metadata of a fixture */
export type Fixtures = Record<string, Record<string, unknown>>;

/** the metadata of a fixture: kube's values in every commonly set field of ObjectMeta */
export function fixtureMeta(name: string, namespace?: string) {
  return {
    name,
    ...(namespace ? { namespace } : {}),
    uid: '7c1f0a52-3a3e-4f6b-9d0e-1b2c3d4e5f60',
    resourceVersion: '42',
    creationTimestamp: '2024-05-01T10:00:00Z',
    labels: { app: 'web' },
    annotations: { note: 'round trip' },
  };
}
