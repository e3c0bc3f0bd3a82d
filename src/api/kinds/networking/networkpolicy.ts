/**
 * networking.k8s.io/v1 NetworkPolicy (kube 1.20 no longer serves it in extensions/v1beta1). kube's
 * defaults (a port's protocol TCP; policyTypes Ingress, plus Egress when egress rules exist) and
 * validation: ports and port ranges (endPort, added after 1.20), peers (exactly one kind, ipBlock
 * alone), ipBlock CIDRs with their exceptions strictly inside, policy types.
 */
import type { StatusCause } from '../../errors';
import type { KindDefinition, KubeObject } from '../../kind';
import { forbidden, invalid, notSupported, required } from '../../validation/field-errors';
import { isValidPortName, isValidPortNum } from '../../validation/names';
import { selectorString, validateLabelSelector } from '../label-selector';
import { age, ageColumn, column, nameColumn } from '../table-format';
import { arrAt, ensureObj, isObj, objAt, setDefault, str, type Obj } from '../util';
import { cidrContains, parseCIDR } from './ip';

const PROTOCOLS = ['TCP', 'UDP', 'SCTP'];
const POLICY_TYPES = ['Ingress', 'Egress'];

function defaults(obj: KubeObject): void {
  const spec = ensureObj(obj, 'spec');
  for (const rule of [...arrAt(spec, 'ingress'), ...arrAt(spec, 'egress')]) {
    for (const port of arrAt(rule, 'ports')) if (isObj(port)) setDefault(port, 'protocol', 'TCP');
  }
  if (arrAt(spec, 'policyTypes').length === 0) {
    spec.policyTypes = arrAt(spec, 'egress').length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

function validatePort(port: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (port.protocol !== undefined && port.protocol !== null && !PROTOCOLS.includes(str(port.protocol))) {
    causes.push(notSupported(`${p}.protocol`, port.protocol, PROTOCOLS));
  }
  const endPort = typeof port.endPort === 'number' ? port.endPort : undefined;
  if (typeof port.port === 'number') {
    for (const msg of isValidPortNum(port.port)) causes.push(invalid(`${p}.port`, port.port, msg));
    if (endPort !== undefined) {
      if (endPort < port.port) causes.push(invalid(`${p}.endPort`, endPort, 'must be greater than or equal to `port`'));
      for (const msg of isValidPortNum(endPort)) causes.push(invalid(`${p}.endPort`, endPort, msg));
    }
  } else if (typeof port.port === 'string') {
    if (endPort !== undefined) causes.push(invalid(`${p}.endPort`, endPort, 'may not be specified when `port` is non-numeric'));
    for (const msg of isValidPortName(port.port)) causes.push(invalid(`${p}.port`, port.port, msg));
  } else if (endPort !== undefined) {
    causes.push(invalid(`${p}.endPort`, endPort, 'may not be specified when `port` is not specified'));
  }
  return causes;
}

/** kube 1.20's ValidateIPBlock (it stops at the first unparsable exception) */
function validateIPBlock(block: Obj, p: string): StatusCause[] {
  const cidrText = str(block.cidr);
  if (cidrText === '') return [required(`${p}.cidr`, '')];
  const cidr = parseCIDR(cidrText);
  if (!cidr) return [invalid(`${p}.cidr`, cidrText, 'not a valid CIDR')];
  const causes: StatusCause[] = [];
  const except = arrAt(block, 'except');
  for (let i = 0; i < except.length; i++) {
    const text = str(except[i]);
    const inner = parseCIDR(text);
    if (!inner) return [...causes, invalid(`${p}.except[${i}]`, text, 'not a valid CIDR')];
    if (!cidrContains(cidr, inner) || cidr.prefix >= inner.prefix) causes.push(invalid(`${p}.except[${i}]`, text, 'must be a strict subset of `cidr`'));
  }
  return causes;
}

function validatePeer(peer: Obj, p: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let kinds = 0;
  for (const key of ['podSelector', 'namespaceSelector']) {
    if (peer[key] === undefined || peer[key] === null) continue;
    kinds++;
    causes.push(...validateLabelSelector(peer[key], `${p}.${key}`));
  }
  const block = objAt(peer, 'ipBlock');
  if (block) {
    kinds++;
    causes.push(...validateIPBlock(block, `${p}.ipBlock`));
  }
  if (kinds === 0) causes.push(required(p, 'must specify a peer'));
  else if (kinds > 1 && block) causes.push(forbidden(p, 'may not specify both ipBlock and another peer'));
  return causes;
}

function validate(obj: KubeObject): StatusCause[] {
  const spec = objAt(obj, 'spec') ?? {};
  const causes = validateLabelSelector(spec.podSelector, 'spec.podSelector');
  for (const [dir, peers] of [['ingress', 'from'], ['egress', 'to']] as const) {
    arrAt(spec, dir).forEach((r, i) => {
      const rule = isObj(r) ? r : {};
      arrAt(rule, 'ports').forEach((port, j) => causes.push(...validatePort(isObj(port) ? port : {}, `spec.${dir}[${i}].ports[${j}]`)));
      arrAt(rule, peers).forEach((peer, j) => causes.push(...validatePeer(isObj(peer) ? peer : {}, `spec.${dir}[${i}].${peers}[${j}]`)));
    });
  }
  const types = arrAt(spec, 'policyTypes');
  if (types.length > POLICY_TYPES.length) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: &[]networking.PolicyType{${types.map((x) => JSON.stringify(x)).join(', ')}}: may not specify more than two policyTypes`, field: 'spec.policyTypes' });
    return causes;
  }
  types.forEach((t, i) => {
    if (!POLICY_TYPES.includes(str(t))) causes.push(notSupported(`spec.policyTypes[${i}]`, t, POLICY_TYPES));
  });
  return causes;
}

export function networkPolicyKind(): KindDefinition {
  return {
    group: 'networking.k8s.io',
    version: 'v1',
    kind: 'NetworkPolicy',
    listKind: 'NetworkPolicyList',
    resource: 'networkpolicies',
    singular: 'networkpolicy',
    namespaced: true,
    shortNames: ['netpol'],
    categories: [],
    storage: { group: 'networking.k8s.io', resource: 'networkpolicies' },
    storageVersion: 'v1',
    schemaName: 'io.k8s.api.networking.v1.NetworkPolicy',
    tracksGeneration: true,
    statusSubresource: false,
    strategy: { defaults, validate },
    table: {
      columns: [nameColumn(), column('Pod-Selector', 'string', 'Pods the policy applies to.'), ageColumn()],
      // kube's FormatLabelSelector: `<none>` for an empty selector
      cells: (obj, now) => [str(obj.metadata?.name), selectorString(objAt(obj, 'spec')?.podSelector) || '<none>', age(obj, now)],
    },
    defaultGarbageCollectionPolicy: 'Background',
  };
}
