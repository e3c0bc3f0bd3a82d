import t from 'tap';
import { ApiError } from '../../src/client/errors';
import { SharedInformer } from '../../src/client/informer';
import type { RestClient } from '../../src/client/rest-client';
import type { KubeObject, ObjectList, ResourceRef, WatchEvent } from '../../src/client/types';

const REF: ResourceRef = { group: '', version: 'v1', resource: 'configmaps', kind: 'ConfigMap', namespaced: true };
const cm = (name: string, rv: string): KubeObject => ({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { namespace: 'ns', name, resourceVersion: rv } });

/** a scripted server: each list answers the next page set, each watch plays the next script */
function fakeClient(lists: ObjectList[], watches: (WatchEvent[] | Error)[]) {
  const calls: string[] = [];
  const client = {
    async list(_ref: ResourceRef, _ns: string | undefined, opts: { continue?: string }) {
      calls.push(`list${opts.continue ? ` ${opts.continue}` : ''}`);
      return lists.shift() ?? { items: [], metadata: { resourceVersion: '99' } };
    },
    async *watch(_ref: ResourceRef, _ns: string | undefined, opts: { resourceVersion?: string; signal?: AbortSignal }) {
      calls.push(`watch ${opts.resourceVersion}`);
      const script = watches.shift();
      if (!script) {
        await new Promise<void>((r) => opts.signal?.addEventListener('abort', () => r(), { once: true }));
        return;
      }
      if (script instanceof Error) throw script;
      for (const e of script) yield e;
    },
  };
  return { client: client as unknown as RestClient, calls };
}

t.test('paged list, watch from its version, bookmarks, 410 -> relist with the differences', async (t) => {
  const { client, calls } = fakeClient(
    [
      { items: [cm('a', '1')], metadata: { resourceVersion: '10', continue: 'page2' } },
      { items: [cm('b', '2')], metadata: { resourceVersion: '10' } },
      { items: [cm('a', '1'), cm('c', '30')], metadata: { resourceVersion: '31' } },
    ],
    [
      [
        { type: 'MODIFIED', object: cm('a', '11') },
        { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } },
      ],
      new ApiError(410, { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }),
    ],
  );
  const informer = new SharedInformer(client, REF);
  const seen: string[] = [];
  informer.addEventHandler({
    add: (o, initial) => seen.push(`add ${o.metadata?.name} ${initial}`),
    update: (_o, n) => seen.push(`update ${n.metadata?.name} ${n.metadata?.resourceVersion}`),
    delete: (o, unknown) => seen.push(`delete ${o.metadata?.name} ${unknown}`),
  });
  const stop = new AbortController();
  const run = informer.run(stop.signal);
  await informer.waitForSync();
  for (let i = 0; i < 50 && calls.length < 6; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(calls, ['list', 'list page2', 'watch 10', 'watch 20', 'list', 'watch 31'], 'the watch resumes after the bookmark; 410 relists');
  t.same(seen, ['add a true', 'add b true', 'update a 11', 'update a 1', 'add c false', 'delete b true']);
  t.same(informer.store.keys().sort(), ['ns/a', 'ns/c']);
  t.equal(informer.lastSyncResourceVersion, '31');
  stop.abort();
  await run;
});

t.test('a handler added after the list gets the known objects; an ERROR event with 410 relists', async (t) => {
  const { client, calls } = fakeClient(
    [{ items: [cm('a', '1')], metadata: { resourceVersion: '5' } }],
    [[{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'gone' } as KubeObject }]],
  );
  const informer = new SharedInformer(client, REF);
  const stop = new AbortController();
  const run = informer.run(stop.signal);
  await informer.waitForSync();
  const late: string[] = [];
  informer.addEventHandler({ add: (o) => late.push(o.metadata?.name ?? '') });
  t.same(late, ['a']);
  for (let i = 0; i < 50 && calls.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(calls.slice(0, 3), ['list', 'watch 5', 'list']);
  stop.abort();
  await run;
});
