/**
 * MutatingAdmissionWebhook: the matching webhooks are called one after another, each with the
 * object as the previous ones left it (converted to the webhook's version under matchPolicy
 * Equivalent); a JSONPatch answer is applied to that object, defaulted and converted back. As
 * kube's reinvocation rule has it, webhooks with reinvocationPolicy IfNeeded are called once more
 * when a webhook after them changed the object. A patch may not move the object to another
 * namespace (400, kube's namespace check) nor rename it on update (422, metadata.name is
 * immutable). The validating phase is a no-op.
 */
import { errors, isApiError } from '../../api/errors';
import type { KubeObject } from '../../api/kind';
import { applyJsonPatch } from '../../api/patch';
import { str } from '../../api/kinds/util';
import { invalid } from '../../api/validation/field-errors';
import { WebhookConfigurationSource } from './configuration-source';
import {
  addWarnings,
  callWebhook,
  matchingWebhooks,
  webhookName,
  type WebhookAdmissionAttributes,
  type WebhookAdmissionOptions,
} from './dispatcher';
import { denial } from './errors';
import { convertObject, type WebhookInvocation } from './matcher';
import type { ClosableAdmission } from './validating';

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((v, i) => sameJson(v, (b as unknown[])[i]));
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** kube's checks of what admission may not change about the object being written */
function checkIdentity(a: WebhookAdmissionAttributes, before: KubeObject, after: KubeObject): void {
  // kube's EnsureObjectNamespaceMatchesRequestNamespace: unset or equal is fine, and cluster-scoped
  // objects simply lose a namespace
  const ns = str(after.metadata?.namespace);
  if (ns !== '' && a.namespace !== '' && ns !== a.namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const name = str(after.metadata?.name);
  const oldName = str(before.metadata?.name);
  if (a.operation === 'UPDATE' && name !== oldName) {
    throw errors.invalid(a.kind.kind, a.kind.group, oldName, [invalid('metadata.name', name, 'field is immutable')]);
  }
}

/** replace the contents of `target` by those of `source`, keeping the object the caller holds */
function replaceContents(target: KubeObject, source: KubeObject): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, source);
}

export function mutatingWebhookAdmission(opts: WebhookAdmissionOptions): ClosableAdmission {
  const source = new WebhookConfigurationSource({
    registry: opts.registry,
    scheme: opts.scheme,
    kind: 'MutatingWebhookConfiguration',
    onError: (err) => opts.log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'reading webhook configurations failed; retrying'),
  });

  /** call one webhook and apply its patch; true when the object changed */
  async function invoke(inv: WebhookInvocation, a: WebhookAdmissionAttributes): Promise<boolean> {
    const toHook = (o: KubeObject | undefined): KubeObject | undefined => (o && inv.converted ? convertObject(o, a.kind, inv.resource) : o);
    const object = toHook(a.object);
    const answer = await callWebhook(inv, a, { object, oldObject: toHook(a.oldObject) }, true, opts);
    if (!answer) return false;
    addWarnings(a, answer.warnings);
    const name = webhookName(inv);
    if (!answer.allowed) throw denial(name, answer.result, a);
    if (answer.patch === undefined || !a.object || !object) return false;
    let patched: KubeObject;
    try {
      patched = applyJsonPatch(object, answer.patch);
    } catch (err) {
      // kube: a patch that does not decode or apply is an internal error whatever the failurePolicy
      throw errors.internal(isApiError(err) ? err.message : String(err));
    }
    // kube defaults what a webhook returns in the webhook's version, before converting it back
    if (inv.resource === a.kind || inv.converted) inv.resource.strategy.defaults(patched);
    const result = inv.converted ? convertObject(patched, inv.resource, a.kind) : patched;
    if (sameJson(result, a.object)) return false;
    checkIdentity(a, a.object, result);
    replaceContents(a.object, result);
    return true;
  }

  return {
    async admit(a: WebhookAdmissionAttributes) {
      const invocations = await matchingWebhooks(source, a, opts);
      // the IfNeeded webhooks called so far, and whether a later webhook changed the object since
      const reinvoke: WebhookInvocation[] = [];
      let calledIfNeeded: WebhookInvocation[] = [];
      for (const inv of invocations) {
        const changed = await invoke(inv, a);
        if (changed) {
          reinvoke.push(...calledIfNeeded.filter((c) => !reinvoke.includes(c)));
          calledIfNeeded = [];
        }
        if (str(inv.entry.hook.reinvocationPolicy) === 'IfNeeded') calledIfNeeded.push(inv);
      }
      if (reinvoke.length === 0) return;
      // the second pass sees the changed object: match again, call each webhook at most once more
      const again = await matchingWebhooks(source, a, opts);
      for (const inv of again) {
        if (reinvoke.some((r) => r.entry.configurationName === inv.entry.configurationName && r.entry.index === inv.entry.index)) await invoke(inv, a);
      }
    },
    async validate() {},
    close: () => source.close(),
    ready: () => source.ready(),
  };
}
