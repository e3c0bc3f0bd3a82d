/**
 * policy/v1beta1 PodSecurityPolicy, as kube 1.20 served it: cluster-scoped, shortName psp,
 * SetDefaults_PodSecurityPolicySpec (allowPrivilegeEscalation true), ValidatePodSecurityPolicy and
 * kube 1.20's table. Kube removed the kind in 1.25; we keep serving it for 1.20 clients.
 */
import type { KindDefinition } from '../../kind';
import { column, nameColumn } from '../table-format';
import { arrAt, ensureObj, objAt, str } from '../util';
import { validatePSPAnnotations, validatePSPSpec } from './psp-validation';

const rule = (spec: Record<string, unknown>, key: string): string => str(objAt(spec, key)?.rule);

export function podSecurityPolicyKind(): KindDefinition {
  return {
    group: 'policy',
    version: 'v1beta1',
    kind: 'PodSecurityPolicy',
    listKind: 'PodSecurityPolicyList',
    resource: 'podsecuritypolicies',
    singular: 'podsecuritypolicy',
    namespaced: false,
    shortNames: ['psp'],
    categories: [],
    storage: { group: 'policy', resource: 'podsecuritypolicies' },
    storageVersion: 'policy/v1beta1',
    schemaName: 'io.k8s.api.policy.v1beta1.PodSecurityPolicy',
    tracksGeneration: false,
    statusSubresource: false,
    strategy: {
      defaults(obj) {
        const spec = ensureObj(obj, 'spec');
        if (spec.allowPrivilegeEscalation === undefined || spec.allowPrivilegeEscalation === null) spec.allowPrivilegeEscalation = true;
      },
      validate(obj) {
        return [...validatePSPAnnotations(obj.metadata?.annotations ?? {}), ...validatePSPSpec(objAt(obj, 'spec') ?? {})];
      },
    },
    table: {
      columns: [
        nameColumn(),
        column('Priv', 'string', 'Whether privileged containers are allowed.'),
        column('Caps', 'string', 'Capabilities containers may add.'),
        column('SELinux', 'string', 'How the SELinux context is chosen.'),
        column('RunAsUser', 'string', 'How the container user is chosen.'),
        column('FsGroup', 'string', 'How the pod fsGroup is chosen.'),
        column('SupGroup', 'string', 'How supplemental groups are chosen.'),
        column('ReadOnlyRootFs', 'string', 'Whether containers must run with a read-only root filesystem.'),
        column('Volumes', 'string', 'Volume types allowed.'),
      ],
      cells(obj) {
        const spec = objAt(obj, 'spec') ?? {};
        return [
          str(obj.metadata?.name),
          String(spec.privileged === true),
          arrAt(spec, 'allowedCapabilities').map(str).join(','),
          rule(spec, 'seLinux'),
          rule(spec, 'runAsUser'),
          rule(spec, 'fsGroup'),
          rule(spec, 'supplementalGroups'),
          // kube puts the bool itself in this string column
          spec.readOnlyRootFilesystem === true,
          arrAt(spec, 'volumes').map(str).join(','),
        ];
      },
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
