import t from 'tap';
import type { KubeObject } from '../../src/api/kind';
import { withVerbs } from '../../src/api/registry/with-verbs';
import { withTokenRequestAdmission } from '../../src/admission/plugins/token-request-admission';
import { rejects } from '../helpers/registry-assert';
import { admissionFixture } from './admission-fixture';

const n1 = { name: 'system:node:n1', groups: ['system:nodes', 'system:authenticated'] };
const admin = { name: 'admin', groups: ['system:masters'] };

t.test('NodeRestriction: a node\'s tokens are bound to its own pods (TokenRequest admitted as a CREATE of serviceaccounts/token)', async (t) => {
  const f = await admissionFixture(['NodeRestriction']);
  t.teardown(() => f.close());
  const pod = (name: string, nodeName: string): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { nodeName, containers: [{ name: 'c', image: 'x' }] } });
  const mine = (await f.registry.create(f.target('pods', 'default'), pod('mine', 'n1'), { dryRun: false, user: admin })).object;
  const theirs = (await f.registry.create(f.target('pods', 'default'), pod('theirs', 'n2'), { dryRun: false, user: admin })).object;
  // the issuer stands in for withTokenRequest: it answers without the registry's admission
  const issuer = withVerbs(f.registry, { createSubresource: async (_t, _s, body) => ({ object: body, created: true }) });
  const registry = withTokenRequestAdmission(issuer, f.chain);
  const target = f.target('serviceaccounts', 'default', 'default');
  const request = (boundObjectRef?: Record<string, unknown>): KubeObject => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences: ['api'], ...(boundObjectRef ? { boundObjectRef } : {}) } });
  const ref = (p: KubeObject, uid = p.metadata?.uid) => ({ apiVersion: 'v1', kind: 'Pod', name: p.metadata?.name, uid });

  t.ok((await registry.createSubresource(target, 'token', request(ref(mine)), { dryRun: false, user: n1 })).created);
  await rejects(t, registry.createSubresource(target, 'token', request(), { dryRun: false, user: n1 }), 403, 'Forbidden', 'serviceaccounts "default" is forbidden: node requested token not bound to a pod');
  await rejects(t, registry.createSubresource(target, 'token', request(ref(theirs)), { dryRun: false, user: n1 }), 403, 'Forbidden', /node requested token bound to a pod scheduled on a different node/);
  await rejects(t, registry.createSubresource(target, 'token', request(ref(mine, '')), { dryRun: false, user: n1 }), 403, 'Forbidden', /node requested token with a pod binding without a uid/);
  await rejects(t, registry.createSubresource(target, 'token', request(ref(mine, 'stale')), { dryRun: false, user: n1 }), 403, 'Forbidden',
    /the UID in the bound object reference \(stale\) does not match the UID in record/);
  t.ok((await registry.createSubresource(target, 'token', request(), { dryRun: false, user: admin })).created, 'other users are not restricted');
});
