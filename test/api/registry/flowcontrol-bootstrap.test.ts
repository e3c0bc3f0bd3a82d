/**
 * The APF objects kube-apiserver keeps at start, through the registry and a real store: created on a
 * fresh store; suggested ones updated only while their autoupdate annotation allows; mandatory ones
 * always reset (except the exempt level's own settings, which administrators may change).
 */
import t from 'tap';
import { builtinBootstrapObjects } from '../../../src/api/kinds/bootstrap';
import { objectKey } from '../../../src/api/registry/keys';
import type { KubeObject } from '../../../src/api/kind';
import { makeFixture, storeKinds, write } from '../../helpers/registry-fixture';
import type { Fixture } from '../../helpers/registry-fixture';

const GROUP = 'flowcontrol.apiserver.k8s.io';
const AUTO = 'apf.kubernetes.io/autoupdate-spec';

function target(f: Fixture, resource: 'flowschemas' | 'prioritylevelconfigurations', name?: string, version = 'v1') {
  return { kind: f.kind(resource, GROUP, version), ...(name ? { name } : {}) };
}

async function get(f: Fixture, resource: 'flowschemas' | 'prioritylevelconfigurations', name: string): Promise<KubeObject> {
  return f.registry.get(target(f, resource, name), {});
}

for (const storeKind of storeKinds()) {
  t.test(`${storeKind}: a fresh store gets kube's objects`, async (t) => {
    const f = await makeFixture(storeKind, { bootstrapObjects: builtinBootstrapObjects });
    t.teardown(() => f.close());
    const schemas = await f.registry.list(target(f, 'flowschemas'), {});
    t.equal(schemas.items.length, 13);
    const levels = await f.registry.list(target(f, 'prioritylevelconfigurations'), {});
    t.same(levels.items.map((o) => o.metadata?.name).sort(), ['catch-all', 'exempt', 'global-default', 'leader-election', 'node-high', 'system', 'workload-high', 'workload-low']);
    const catchAll = await get(f, 'flowschemas', 'catch-all');
    t.equal(catchAll.metadata?.annotations?.[AUTO], 'true');
    t.equal(catchAll.metadata?.generation, 1);
    t.equal(catchAll.metadata?.managedFields && (catchAll.metadata.managedFields[0] as { manager: string }).manager, 'kube-apiserver');
    // readable in the earlier versions too
    const old = await f.registry.get(target(f, 'prioritylevelconfigurations', 'workload-low', 'v1beta1'), {});
    t.equal((old.spec as { limited: Record<string, unknown> }).limited.assuredConcurrencyShares, 100);
    // a second start changes nothing
    const before = (await f.registry.list(target(f, 'flowschemas'), {})).metadata.resourceVersion;
    await f.registry.bootstrap();
    const after = (await f.registry.list(target(f, 'flowschemas'), {})).metadata.resourceVersion;
    t.equal(after, before, 'no writes when everything is as kube wants it');
  });

  t.test(`${storeKind}: suggested objects follow their autoupdate annotation`, async (t) => {
    const f = await makeFixture(storeKind, { bootstrapObjects: builtinBootstrapObjects });
    t.teardown(() => f.close());
    // edited with autoupdate off: kept
    const probes = await get(f, 'flowschemas', 'probes');
    probes.metadata!.annotations = { [AUTO]: 'false' };
    (probes.spec as Record<string, unknown>).matchingPrecedence = 3;
    await f.registry.update(target(f, 'flowschemas', 'probes'), probes, write);
    // edited with autoupdate on: reset
    const system = await get(f, 'prioritylevelconfigurations', 'system');
    (system.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares = 99;
    await f.registry.update(target(f, 'prioritylevelconfigurations', 'system'), system, write);
    // edited and the annotation removed: generation 2, so kube leaves it alone
    const nodes = await get(f, 'flowschemas', 'system-nodes');
    delete nodes.metadata!.annotations;
    (nodes.spec as Record<string, unknown>).matchingPrecedence = 501;
    await f.registry.update(target(f, 'flowschemas', 'system-nodes'), nodes, write);
    // deleted: created again
    await f.registry.delete(target(f, 'flowschemas', 'global-default'), write);

    await f.registry.bootstrap();

    const probesAfter = await get(f, 'flowschemas', 'probes');
    t.equal((probesAfter.spec as Record<string, unknown>).matchingPrecedence, 3, 'autoupdate-spec "false" is kept');
    t.equal(probesAfter.metadata?.annotations?.[AUTO], 'false');
    const systemAfter = await get(f, 'prioritylevelconfigurations', 'system');
    t.equal((systemAfter.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares, 30, 'autoupdate-spec "true" is reset');
    t.equal(systemAfter.metadata?.generation, 3);
    const nodesAfter = await get(f, 'flowschemas', 'system-nodes');
    t.equal((nodesAfter.spec as Record<string, unknown>).matchingPrecedence, 501, 'no annotation and a changed spec: kept');
    t.notOk(nodesAfter.metadata?.annotations?.[AUTO]);
    t.ok(await get(f, 'flowschemas', 'global-default'), 'a deleted suggested object is created again');
  });

  t.test(`${storeKind}: mandatory objects are reset whatever their annotation`, async (t) => {
    const f = await makeFixture(storeKind, { bootstrapObjects: builtinBootstrapObjects });
    t.teardown(() => f.close());
    // validation refuses edits of the mandatory spec, so the edit is written to the store directly,
    // as an older server version (or a hand edit of the database) would leave it
    const kind = f.kind('flowschemas', GROUP, 'v1');
    const key = objectKey(kind, undefined, 'catch-all');
    const stored = await f.store.get(key);
    const edited = JSON.parse(stored!.value) as KubeObject;
    (edited.spec as Record<string, unknown>).matchingPrecedence = 9999;
    edited.metadata!.annotations = { [AUTO]: 'false', keep: 'me' };
    await f.store.update(key, JSON.stringify(edited), stored!.modRevision);
    t.equal((await get(f, 'flowschemas', 'catch-all')).spec && ((await get(f, 'flowschemas', 'catch-all')).spec as Record<string, unknown>).matchingPrecedence, 9999);

    // the exempt level's own settings may change through the API, and stay
    const exempt = await get(f, 'prioritylevelconfigurations', 'exempt');
    (exempt.spec as Record<string, unknown>).exempt = { nominalConcurrencyShares: 10, lendablePercent: 20 };
    await f.registry.update(target(f, 'prioritylevelconfigurations', 'exempt'), exempt, write);
    // other changes to it are refused
    const broken = await get(f, 'prioritylevelconfigurations', 'catch-all');
    (broken.spec as { limited: Record<string, unknown> }).limited.nominalConcurrencyShares = 50;
    await t.rejects(f.registry.update(target(f, 'prioritylevelconfigurations', 'catch-all'), broken, write), { code: 422 });

    await f.registry.bootstrap();

    const catchAll = await get(f, 'flowschemas', 'catch-all');
    t.equal((catchAll.spec as Record<string, unknown>).matchingPrecedence, 10000, 'the mandatory spec is back');
    t.same(catchAll.metadata?.annotations, { [AUTO]: 'true', keep: 'me' }, 'autoupdate is forced on; other annotations stay');
    const exemptAfter = await get(f, 'prioritylevelconfigurations', 'exempt');
    t.same((exemptAfter.spec as Record<string, unknown>).exempt, { nominalConcurrencyShares: 10, lendablePercent: 20 });
  });
}
