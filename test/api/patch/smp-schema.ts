/**
 * Small inline definitions for strategic merge patch tests: a Deployment-like tree with kube's
 * merge keys (containers by name, ports by containerPort, env by name, volumes merge+retainKeys)
 * and kube's own test type MergeItem (strategicpatch patch_test.go), so its cases can be reused.
 */
import type { Definitions } from '../../../src/schema/types';

const ref = (name: string) => ({ $ref: `#/definitions/${name}` });
const str = { type: 'string' as const };
const map = { type: 'object' as const, additionalProperties: { type: 'string' as const } };

export const definitions: Definitions = {
  'test.Deployment': {
    type: 'object',
    properties: { apiVersion: str, kind: str, metadata: ref('test.ObjectMeta'), spec: ref('test.DeploymentSpec') },
  },
  'test.ObjectMeta': {
    type: 'object',
    properties: {
      name: str,
      labels: map,
      annotations: map,
      finalizers: { type: 'array', items: str, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  'test.DeploymentSpec': {
    type: 'object',
    properties: {
      replicas: { type: 'integer' },
      strategy: { ...ref('test.DeploymentStrategy'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      template: ref('test.PodTemplateSpec'),
    },
  },
  'test.DeploymentStrategy': { type: 'object', properties: { type: str, rollingUpdate: { type: 'object', properties: { maxSurge: str } } } },
  'test.PodTemplateSpec': { type: 'object', properties: { metadata: ref('test.ObjectMeta'), spec: ref('test.PodSpec') } },
  'test.PodSpec': {
    type: 'object',
    properties: {
      containers: { type: 'array', items: ref('test.Container'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      volumes: { type: 'array', items: ref('test.Volume'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge,retainKeys' },
      tolerations: { type: 'array', items: { type: 'object', properties: { key: str } } },
      nodeSelector: map,
    },
  },
  'test.Container': {
    type: 'object',
    properties: {
      name: str,
      image: str,
      args: { type: 'array', items: str },
      ports: { type: 'array', items: ref('test.ContainerPort'), 'x-kubernetes-patch-merge-key': 'containerPort', 'x-kubernetes-patch-strategy': 'merge' },
      env: { type: 'array', items: ref('test.EnvVar'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  'test.ContainerPort': { type: 'object', properties: { containerPort: { type: 'integer' }, protocol: str, name: str } },
  'test.EnvVar': { type: 'object', properties: { name: str, value: str } },
  'test.Volume': { type: 'object', properties: { name: str, emptyDir: { type: 'object' }, configMap: { type: 'object' } } },

  // kube's MergeItem test type
  'test.MergeItem': {
    type: 'object',
    properties: {
      name: str,
      value: str,
      other: str,
      mergingList: { type: 'array', items: ref('test.MergeItem'), 'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingList: { type: 'array', items: ref('test.MergeItem') },
      mergingIntList: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-patch-strategy': 'merge' },
      nonMergingIntList: { type: 'array', items: { type: 'integer' } },
      simpleMap: map,
      replacingItem: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-patch-strategy': 'replace' },
      retainKeysMap: { ...ref('test.MergeItem'), 'x-kubernetes-patch-strategy': 'retainKeys' },
      retainKeysMergingList: {
        type: 'array',
        items: ref('test.MergeItem'),
        'x-kubernetes-patch-merge-key': 'name',
        'x-kubernetes-patch-strategy': 'merge,retainKeys',
      },
    },
  },
};

export const deploymentSchema = { definitions, root: 'test.Deployment' };
export const mergeItemSchema = { definitions, root: 'test.MergeItem' };
