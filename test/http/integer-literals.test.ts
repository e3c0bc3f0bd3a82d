/** Float literals that JSON.parse reads as integers are refused in integer fields, as kube's decoder does. */
import t from 'tap';
import { builtinKinds } from '../../src/api/kinds';
import { ApiError } from '../../src/api/errors';
import { jsonCodec } from '../../src/http/codecs/json';

const deploymentKind = builtinKinds().find((k) => k.group === 'apps' && k.kind === 'Deployment')!;

function body(replicas: string, cpu = '"100m"'): Buffer {
  return Buffer.from(
    `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":${replicas},` +
      `"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},` +
      `"spec":{"containers":[{"name":"c","image":"i","resources":{"limits":{"cpu":${cpu}}}}]}}}}`,
  );
}

t.test('1e-400, 2.0 and 3e2 in spec.replicas (int32) are a 400 naming the literal', async (t) => {
  for (const literal of ['1e-400', '2.0', '3e2', '-0.0']) {
    const err = (() => {
      try {
        jsonCodec.decode(body(literal), { kind: deploymentKind });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    t.ok(err instanceof ApiError, `${literal} is refused`);
    t.equal((err as ApiError).code, 400);
    t.equal(
      (err as ApiError).status.message,
      `Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number ${literal} into Go struct field DeploymentSpec.spec.replicas of type int32`,
    );
  }
});

t.test('plain integers, and float literals where a quantity stands, are accepted', async (t) => {
  const plain = jsonCodec.decode(body('3'), { kind: deploymentKind }) as { spec: { replicas: number } };
  t.equal(plain.spec.replicas, 3);
  const cpu = jsonCodec.decode(body('1', '1.0'), { kind: deploymentKind }) as { spec: { template: { spec: { containers: Array<{ resources: { limits: { cpu: unknown } } }> } } } };
  t.equal(cpu.spec.template.spec.containers[0].resources.limits.cpu, 1, 'a quantity may be any JSON number');
  t.doesNotThrow(() => jsonCodec.decode(body('1e-400'), {}), 'without a kind nothing is known about the fields');
});
