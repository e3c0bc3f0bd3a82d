/**
 * Round-trip fixtures of the groups added after the first 21 kinds, one file per group, merged
 * here: one realistic object per served kind, keyed by `apiVersion/Kind` (test/codec/roundtrip.test.ts).
 */
import { admissionRegistrationFixtures } from './admissionregistration';
import { certificatesFixtures } from './certificates';
import { rbacFixtures } from './rbac';
import { reviewFixtures } from './reviews';
import { coreFixtures } from './core';
import { policyFixtures } from './policy';
import { discoveryFixtures } from './discovery';
import { networkingFixtures } from './networking';
import { nodeSchedulingFixtures } from './node-scheduling';
import { storageFixtures } from './storage';
import { autoscalingFixtures } from './autoscaling';
import { earlierVersionFixtures } from './earlier-versions';
import { flowcontrolFixtures } from './flowcontrol';

export type Fixtures = Record<string, Record<string, unknown>>;

/**
 * the shared metadata of fixtures: the values kube keeps in every field of ObjectMeta. A function
 * declaration, so the group files this module imports can call it while it loads (circular import).
 */
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

import { apiextensionsFixtures } from './apiextensions';

import { apiregistrationFixtures } from './apiregistration';

export const groupFixtures: Fixtures = {
  ...rbacFixtures,
  ...admissionRegistrationFixtures,
  ...certificatesFixtures,
  ...reviewFixtures,
  ...coreFixtures,
  ...policyFixtures,
  ...networkingFixtures,
  ...discoveryFixtures,
  ...nodeSchedulingFixtures,
  ...storageFixtures,
  ...autoscalingFixtures,
  ...flowcontrolFixtures,
  ...earlierVersionFixtures,
  ...apiextensionsFixtures,
  ...apiregistrationFixtures,
};
