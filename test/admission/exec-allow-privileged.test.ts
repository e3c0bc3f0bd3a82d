import t from 'tap';
import { builtinKinds } from '../../src/api/kinds/index';
import type { KindDefinition } from '../../src/api/kind';

const find = (kinds: KindDefinition[], group: string, kind: string) => kinds.find((k) => k.group === group && k.kind === kind)!;
const privilegedOnly = (causes: { field?: string }[]) => causes.filter((c) => c.field?.endsWith('.privileged'));
const privileged = { name: 'c', image: 'x', securityContext: { privileged: true } };

t.test('--allow-privileged=false refuses privileged containers in pods and templates', async (t) => {
  const kinds = builtinKinds({ allowPrivileged: false });
  const pod = find(kinds, '', 'Pod');
  const causes = pod.strategy.validate({ kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'ok', image: 'x' }, privileged], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } });
  t.same(privilegedOnly(causes), [{ reason: 'FieldValueForbidden', message: 'Forbidden: disallowed by cluster policy', field: 'spec.containers[1].securityContext.privileged' }]);
  const init = pod.strategy.validate({ kind: 'Pod', spec: { initContainers: [privileged], containers: [{ name: 'a', image: 'x' }], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } });
  t.equal(privilegedOnly(init)[0]?.field, 'spec.initContainers[0].securityContext.privileged');
  const deployment = find(kinds, 'apps', 'Deployment');
  const d = deployment.strategy.validate({ kind: 'Deployment', spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [privileged], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } } } });
  t.ok(d.some((c) => c.field === 'spec.template.spec.containers[0].securityContext.privileged' && c.message === 'Forbidden: disallowed by cluster policy'));
  const cronJob = find(kinds, 'batch', 'CronJob');
  const c = cronJob.strategy.validate({ kind: 'CronJob', spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [privileged], restartPolicy: 'Never', dnsPolicy: 'ClusterFirst' } } } } } });
  t.ok(c.some((x) => x.field === 'spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged'));
});

t.test('allowed when --allow-privileged=true (and by default for embedders)', async (t) => {
  for (const kinds of [builtinKinds({ allowPrivileged: true }), builtinKinds()]) {
    const pod = find(kinds, '', 'Pod');
    t.same(privilegedOnly(pod.strategy.validate({ kind: 'Pod', spec: { containers: [privileged], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' } })), []);
  }
});
