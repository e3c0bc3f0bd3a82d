import t from 'tap';
import { definitions } from '../../../src/schema';
import { SchemaType, fieldSetOf } from '../../../src/api/apply';

t.test('a field marked granular is granular even when its type is atomic (PersistentVolumeSpec.claimRef)', async (t) => {
  const ref = { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' };
  const pv = fieldSetOf({ spec: { claimRef: ref } }, SchemaType.forDefinition(definitions, 'io.k8s.api.core.v1.PersistentVolume'));
  t.same(pv.toFieldsV1(), { 'f:spec': { 'f:claimRef': { 'f:kind': {}, 'f:name': {}, 'f:namespace': {} } } }, 'each field owned on its own');
  // the same type without the field marker stays atomic (Binding.target)
  const binding = fieldSetOf({ target: ref }, SchemaType.forDefinition(definitions, 'io.k8s.api.core.v1.Binding'));
  t.same(binding.toFieldsV1(), { 'f:target': {} });
});
