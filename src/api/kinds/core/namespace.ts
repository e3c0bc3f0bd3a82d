/** core/v1 Namespace: kube's namespace strategy (finalizer `kubernetes`, phase Active, name label) */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { invalid, notSupported } from '../../validation/field-errors';
import { isQualifiedName } from '../../validation/names';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, ensureObj, objAt, str } from '../util';

/** kube's NamespaceDefaultLabelName, set to the namespace's name (SetDefaults_Namespace) */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/** kube's validateFinalizerName over spec.finalizers (also checked by the finalize subresource) */
export function validateFinalizers(finalizers: unknown[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  finalizers.forEach((f, i) => {
    const name = str(f);
    const msgs = isQualifiedName(name);
    // kube: a finalizer without a domain prefix must be one of the standard ones
    if (msgs.length === 0 && !name.includes('/') && name !== 'kubernetes') {
      msgs.push('name is neither a standard finalizer name nor is it fully qualified');
    }
    for (const msg of msgs) causes.push(invalid(`${field}[${i}]`, name, msg));
  });
  return causes;
}

export function namespaceKind(): KindDefinition {
  return {
    group: '',
    version: 'v1',
    kind: 'Namespace',
    listKind: 'NamespaceList',
    resource: 'namespaces',
    singular: 'namespace',
    namespaced: false,
    nameValidation: 'dns1123Label',
    shortNames: ['ns'],
    categories: [],
    storage: { group: '', resource: 'namespaces' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.core.v1.Namespace',
    tracksGeneration: false,
    statusSubresource: true,
    // kube's FinalizeREST: PUT only
    subresources: [{ name: 'finalize', type: 'partial', verbs: ['update'] }],
    strategy: {
      defaults(obj) {
        const name = obj.metadata?.name;
        if (typeof name === 'string' && name) {
          const meta = ensureObj(obj, 'metadata');
          const labels = ensureObj(meta, 'labels') as Record<string, string>;
          labels[NAMESPACE_NAME_LABEL] = name;
        }
      },
      prepareForCreate(obj: KubeObject) {
        // kube: every namespace starts Active, guarded by the `kubernetes` finalizer
        obj.spec = { ...(objAt(obj, 'spec') ?? {}), finalizers: ['kubernetes'] };
        obj.status = { phase: 'Active' };
      },
      prepareForUpdate(obj, old) {
        // spec.finalizers change only through the finalize subresource
        const oldFinalizers = objAt(old, 'spec')?.finalizers;
        const spec = ensureObj(obj, 'spec');
        if (oldFinalizers === undefined) delete spec.finalizers;
        else spec.finalizers = oldFinalizers;
      },
      validate(obj) {
        return validateFinalizers(arrAt(objAt(obj, 'spec'), 'finalizers'), 'spec.finalizers');
      },
      validateStatus(obj) {
        const phase = objAt(obj, 'status')?.phase;
        if (phase === undefined || phase === 'Active' || phase === 'Terminating') return [];
        return [notSupported('status.phase', phase, ['Active', 'Terminating'])];
      },
    },
    selectableFields(obj) {
      return { 'status.phase': str(objAt(obj, 'status')?.phase) };
    },
    table: {
      columns: [nameColumn(), column('Status', 'string', 'The status of the namespace'), ageColumn()],
      cells(obj, now) {
        return [str(obj.metadata?.name), str(objAt(obj, 'status')?.phase), age(obj, now)];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
