import t from 'tap';
import type { KindDefinition, KubeObject } from '../../../src/api/kind';
import { buildSelection, objectFields } from '../../../src/api/registry/selection';
import { markShared } from '../../../src/cache/encoded';

/** a kind whose selectable fields count how often they are computed */
function countingKind(): { kind: KindDefinition; computed: () => number } {
  let computed = 0;
  const kind = {
    selectableFields: (obj: KubeObject) => {
      computed++;
      return { 'spec.nodeName': String((obj.spec as { nodeName?: string } | undefined)?.nodeName ?? '') };
    },
  } as unknown as KindDefinition;
  return { kind, computed: () => computed };
}

t.test('the field set of a shared (cached) object is computed once; others each time', async (t) => {
  const { kind, computed } = countingKind();
  const shared = markShared({ metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'a' } } as KubeObject);
  const onA = buildSelection(kind, undefined, 'spec.nodeName=a');
  const onB = buildSelection(kind, undefined, 'spec.nodeName=b');
  const before = computed();
  for (let i = 0; i < 100; i++) {
    t.ok(onA.matches(shared));
    t.notOk(onB.matches(shared));
  }
  t.equal(computed() - before, 1, '200 selector checks of one cached object, one field set');
  t.ok(Object.isFrozen(objectFields(kind, shared)), 'the remembered set cannot be changed');
  t.equal(onA.pinned('spec.nodeName'), 'a');
  t.equal(buildSelection(kind, undefined, 'spec.nodeName!=a').pinned('spec.nodeName'), undefined);

  const own = { metadata: { name: 'q' }, spec: { nodeName: 'a' } } as KubeObject;
  const n = computed();
  onA.matches(own);
  own.spec = { nodeName: 'b' };
  t.ok(onB.matches(own), 'an object of its own caller may change: its fields are read again');
  t.equal(computed() - n, 2);
});
