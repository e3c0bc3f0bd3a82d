import t from 'tap';
import type { KubeObject } from '../../../src/api/kind';
import { builtinBootstrapObjects } from '../../../src/api/kinds/bootstrap';
import { runtimeClassAlphaToV1, runtimeClassV1ToAlpha } from '../../../src/api/kinds/node/runtimeclass';
import { create, fields, kind } from './helpers';

const rc = (extra: Record<string, unknown>): KubeObject => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name: 'gvisor' }, ...extra });

t.test('RuntimeClass v1alpha1 keeps its fields under spec: conversion both ways', async (t) => {
  const v1 = rc({
    handler: 'runsc',
    overhead: { podFixed: { cpu: '250m', memory: '64Mi' } },
    scheduling: { nodeSelector: { sandbox: 'gvisor' }, tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }] },
  });
  const alpha = runtimeClassV1ToAlpha(v1);
  t.same(alpha, {
    apiVersion: 'node.k8s.io/v1alpha1',
    kind: 'RuntimeClass',
    metadata: { name: 'gvisor' },
    spec: { runtimeHandler: 'runsc', overhead: v1.overhead, scheduling: v1.scheduling },
  });
  t.same(runtimeClassAlphaToV1(alpha), v1);
  const def = kind('node.k8s.io', 'v1alpha1', 'RuntimeClass');
  t.same(def.fromStorage!(def.toStorage!(alpha)), alpha);
  t.same(def.table!.cells(alpha, new Date()).slice(0, 2), ['gvisor', 'runsc']);
  const beta = kind('node.k8s.io', 'v1beta1', 'RuntimeClass');
  t.same(beta.fromStorage!(v1), { ...v1, apiVersion: 'node.k8s.io/v1beta1' });
});

t.test('RuntimeClass validation: handler, overhead, scheduling; handler immutable', async (t) => {
  const def = kind('node.k8s.io', 'v1', 'RuntimeClass');
  t.same(create(def, rc({ handler: 'runc' })), []);
  t.same(create(def, rc({ handler: 'Bad.Handler' })).map((c) => c.field), ['handler']);
  const bad = rc({
    handler: 'runc',
    overhead: { podFixed: { cpu: '-1', widgets: '1', 'example.com/gpu': '1' } },
    scheduling: {
      nodeSelector: { 'bad key!': 'x' },
      tolerations: [
        { key: 'a', operator: 'Exists', value: 'v' },
        { operator: 'Equal' },
        { key: 'b', tolerationSeconds: 5, effect: 'NoSchedule' },
        { key: 'c', operator: 'Maybe', effect: 'Sometimes' },
        { key: 'dup', operator: 'Exists' },
        { key: 'dup', operator: 'Exists' },
      ],
    },
  });
  t.same(fields(create(def, bad)), [
    'overhead.limits[cpu]',
    'overhead.limits[widgets]',
    'scheduling.nodeSelector',
    'scheduling.tolerations.tolerations[0].operator',
    'scheduling.tolerations.tolerations[1].operator',
    'scheduling.tolerations.tolerations[2].effect',
    'scheduling.tolerations.tolerations[3].operator',
    'scheduling.tolerations.tolerations[3].effect',
    'scheduling.tolerations[5]',
  ]);
  t.same(def.strategy.validate(rc({ handler: 'kata' }), rc({ handler: 'runc' })), [
    { reason: 'FieldValueInvalid', message: 'Invalid value: "kata": field is immutable', field: 'handler' },
  ]);
  // v1alpha1 is validated in the v1 form, with v1's field names (kube's internal ones)
  const alpha = kind('node.k8s.io', 'v1alpha1', 'RuntimeClass');
  t.same(fields(create(alpha, { apiVersion: 'node.k8s.io/v1alpha1', kind: 'RuntimeClass', metadata: { name: 'x' }, spec: { runtimeHandler: '' } })), ['handler']);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Handler', 'Age']);
});

const pc = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 1000, ...extra });

t.test('PriorityClass: default preemption policy, reserved names, value range, immutability', async (t) => {
  const def = kind('scheduling.k8s.io', 'v1', 'PriorityClass');
  const obj = pc('high', { description: 'for important pods' });
  t.same(create(def, obj), []);
  t.equal(obj.preemptionPolicy, 'PreemptLowerPriority');
  t.same(create(def, pc('too-high', { value: 1_000_000_001 })), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: maximum allowed value of a user defined priority is 1000000000', field: 'value' },
  ]);
  t.same(create(def, pc('system-mine')), [
    { reason: 'FieldValueForbidden', message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class", field: 'metadata.name' },
  ]);
  t.same(create(def, pc('system-node-critical', { value: 5 })).map((c) => c.message), [
    "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000",
  ]);
  t.same(create(def, pc('system-cluster-critical', { value: 2_000_000_000, globalDefault: true })).map((c) => c.message), [
    "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false",
  ]);
  t.same(create(def, pc('system-cluster-critical', { value: 2_000_000_000 })), []);
  t.same(create(def, pc('p', { preemptionPolicy: 'Always' })), [
    { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"', field: 'preemptionPolicy' },
  ]);
  const old = pc('high', { preemptionPolicy: 'PreemptLowerPriority' });
  t.same(def.strategy.validate(pc('high', { value: 2000, preemptionPolicy: 'Never' }), old), [
    { reason: 'FieldValueForbidden', message: 'Forbidden: may not be changed in an update.', field: 'value' },
    { reason: 'FieldValueInvalid', message: 'Invalid value: "Never": field is immutable', field: 'preemptionPolicy' },
  ]);
  // kube leaves "only one global default" to its admission plugin: validation accepts two
  t.same(create(def, pc('a', { globalDefault: true })), []);
});

t.test('PriorityClass: system classes are bootstrap objects and may not be deleted; table; versions', async (t) => {
  const objects = builtinBootstrapObjects().filter((b) => b.object.kind === 'PriorityClass');
  t.same(objects.map((b) => [b.object.metadata!.name, b.object.value, b.object.globalDefault ?? false]), [
    ['system-node-critical', 2000001000, false],
    ['system-cluster-critical', 2000000000, false],
  ]);
  const def = kind('scheduling.k8s.io', 'v1', 'PriorityClass');
  for (const b of objects) {
    const obj = structuredClone(b.object);
    t.same(create(def, obj), [], `${obj.metadata!.name} is valid`);
    t.ok(String(obj.description).length > 0);
    t.equal(def.deleteForbidden!(obj.metadata!.name!), 'this is a system priority class and cannot be deleted');
  }
  t.equal(def.deleteForbidden!('high'), undefined);
  t.same(def.table!.columns.map((c) => c.name), ['Name', 'Value', 'Global-Default', 'Age', 'PreemptionPolicy']);
  t.same(def.table!.cells({ ...pc('high'), preemptionPolicy: 'Never', globalDefault: true }, new Date()).filter((_, i) => i !== 3), ['high', 1000, true, 'Never']);
  for (const version of ['v1beta1', 'v1alpha1']) {
    const other = kind('scheduling.k8s.io', version, 'PriorityClass');
    t.equal(other.deleteForbidden!('system-node-critical'), 'this is a system priority class and cannot be deleted');
    t.same(other.fromStorage!(pc('x')), { ...pc('x'), apiVersion: `scheduling.k8s.io/${version}` });
  }
});
