/**
 * System metadata on create and update, as kube's rest.BeforeCreate / rest.BeforeUpdate and the
 * create/update handlers set it.
 */
import { randomInt } from 'node:crypto';
import { errors } from '../errors';
import type { KindDefinition, KubeObject, ObjectMeta } from '../kind';
import { jsonEqual } from '../json-value';

/** kube's name generator alphabet (no vowels, no confusable characters) and suffix length */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const RANDOM_LENGTH = 5;
const MAX_GENERATED_NAME_LENGTH = 63 - RANDOM_LENGTH;

/** generateName + 5 random characters; the prefix is cut to 58 characters as kube does */
export function generateName(prefix: string): string {
  const base = prefix.length > MAX_GENERATED_NAME_LENGTH ? prefix.slice(0, MAX_GENERATED_NAME_LENGTH) : prefix;
  let suffix = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return base + suffix;
}

/** RFC 3339 with whole seconds, as metav1.Time serializes */
export function timestamp(d: Date): string {
  const iso = d.toISOString();
  // `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 characters) for years 0-9999; the regex for the others
  return iso.length === 24 ? `${iso.slice(0, 19)}Z` : iso.replace(/\.\d{3}Z$/, 'Z');
}

export function metaOf(obj: KubeObject): ObjectMeta {
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  if (typeof obj.metadata !== 'object' || Array.isArray(obj.metadata)) throw errors.badRequest('metadata must be an object');
  return obj.metadata;
}

/**
 * kube's EnsureObjectNamespaceMatchesRequestNamespace: fill an unset namespace from the request,
 * clear it for cluster-scoped kinds, refuse a different one
 */
export function ensureNamespace(kind: KindDefinition, meta: ObjectMeta, requestNamespace: string | undefined): void {
  const expected = kind.namespaced ? requestNamespace ?? '' : '';
  const actual = meta.namespace ?? '';
  if (actual === expected) return;
  if (actual === '') meta.namespace = expected;
  else if (expected === '') delete meta.namespace;
  else throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
}

/**
 * the system fields of a new object: the create handler wipes what the client sent
 * (WipeObjectMetaSystemFields), then FillObjectMetaSystemFields sets uid and creationTimestamp.
 * A client-sent resourceVersion is refused by kube's storage layer with this 500.
 */
export function initCreateMeta(kind: KindDefinition, obj: KubeObject, opts: { namespace?: string; now: Date; uid: string }): void {
  const meta = metaOf(obj);
  delete meta.creationTimestamp;
  delete meta.uid;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  ensureNamespace(kind, meta, opts.namespace);
  if (meta.resourceVersion !== undefined && meta.resourceVersion !== '' && meta.resourceVersion !== '0') {
    throw errors.internal('resourceVersion should not be set on objects to be created');
  }
  delete meta.resourceVersion;
  if (meta.generateName && !meta.name) meta.name = generateName(meta.generateName);
  meta.uid = opts.uid;
  meta.creationTimestamp = timestamp(opts.now);
  if (kind.tracksGeneration) meta.generation = 1;
}

/**
 * kube's BeforeUpdate: generation comes from the old object, uid is filled when missing, and
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds cannot be changed by an update.
 */
export function carryUpdateMeta(obj: KubeObject, old: KubeObject): void {
  const meta = metaOf(obj);
  const oldMeta = old.metadata ?? {};
  if (oldMeta.generation !== undefined) meta.generation = oldMeta.generation;
  else delete meta.generation;
  if (!meta.uid) {
    // no undefined left behind: the object may be the write's response (storedResponse)
    if (oldMeta.uid !== undefined) meta.uid = oldMeta.uid;
    else delete meta.uid;
  }
  if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  }
  delete meta.selfLink;
}

/** everything but metadata and status: a change here bumps metadata.generation */
export function specPart(obj: KubeObject): Record<string, unknown> {
  const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = obj;
  return rest;
}

/** bump generation when anything but metadata and status changed (kinds that track generation) */
export function bumpGeneration(kind: KindDefinition, obj: KubeObject, old: KubeObject): void {
  if (!kind.tracksGeneration) return;
  if (!jsonEqual(specPart(obj), specPart(old))) {
    metaOf(obj).generation = (old.metadata?.generation ?? 0) + 1;
  }
}
