/**
 * Round-trip fixtures of the groups added after the first 21 kinds, one file per group, merged
 * here: one realistic object per served kind, keyed by `apiVersion/Kind` (test/codec/roundtrip.test.ts).
 */
import type { Fixtures } from './meta';
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

export { fixtureMeta } from './meta';
export type { Fixtures } from './meta';
