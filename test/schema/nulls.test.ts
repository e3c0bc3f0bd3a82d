import t from 'tap';
import { definitions } from '../../src/schema/index';
import { decodeNulls } from '../../src/schema/nulls';

t.test('null struct fields are dropped, null list items and map values become zero values', async (t) => {
  const pod = decodeNulls(definitions, 'io.k8s.api.core.v1.Pod', {
    metadata: { name: 'p', labels: { a: null }, annotations: null, ownerReferences: null },
    spec: {
      containers: [{ name: 'c', args: ['x', null], env: null, ports: [{ containerPort: 80, hostPort: null }], resources: { limits: { cpu: null } } }, null],
      terminationGracePeriodSeconds: null,
      tolerations: [{ key: 'k', tolerationSeconds: null }],
    },
    status: null,
  });
  t.same(pod, {
    metadata: { name: 'p', labels: { a: '' } },
    spec: {
      containers: [{ name: 'c', args: ['x', ''], ports: [{ containerPort: 80 }], resources: { limits: { cpu: '0' } } }, {}],
      tolerations: [{ key: 'k' }],
    },
  });
});

t.test('free-form values keep their nulls; undeclared fields are left for the unknown-field check', async (t) => {
  const rev = decodeNulls(definitions, 'io.k8s.api.apps.v1.ControllerRevision', { data: { a: null, b: [null] }, revision: null, bogus: null });
  t.same(rev, { data: { a: null, b: [null] }, bogus: null });
  const unknownName = { a: null };
  t.equal(decodeNulls(definitions, 'no.such.Definition', unknownName), unknownName);
  t.same(unknownName, { a: null });
});
