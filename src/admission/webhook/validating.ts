/**
 * ValidatingAdmissionWebhook: every matching webhook is called at once with the final object; the
 * request is refused by the first (in webhook order) that denies it or fails under failurePolicy
 * Fail. The mutating phase is a no-op.
 */
import type { KubeObject } from '../../api/kind';
import type { Admission } from '../types';
import { WebhookConfigurationSource } from './configuration-source';
import { addWarnings, callWebhook, matchingWebhooks, webhookName, type WebhookAdmissionAttributes, type WebhookAdmissionOptions } from './dispatcher';
import { denial } from './errors';
import { convertObject } from './matcher';

export type ClosableAdmission = Admission & { close(): void; ready(): Promise<void> };

export function validatingWebhookAdmission(opts: WebhookAdmissionOptions): ClosableAdmission {
  const source = new WebhookConfigurationSource({
    registry: opts.registry,
    scheme: opts.scheme,
    kind: 'ValidatingWebhookConfiguration',
    onError: (err) => opts.log?.warn({ err: err instanceof Error ? err.message : String(err) }, 'reading webhook configurations failed; retrying'),
  });
  return {
    async admit() {},
    async validate(a: WebhookAdmissionAttributes) {
      const invocations = await matchingWebhooks(source, a, opts);
      const outcomes = await Promise.allSettled(
        invocations.map((inv) => {
          const convert = (o: KubeObject | undefined): KubeObject | undefined => (o && inv.converted ? convertObject(o, a.kind, inv.resource) : o);
          return callWebhook(inv, a, { object: convert(a.object), oldObject: convert(a.oldObject) }, false, opts);
        }),
      );
      let refusal: unknown;
      outcomes.forEach((o, i) => {
        if (o.status === 'rejected') {
          refusal ??= o.reason;
          return;
        }
        if (!o.value) return;
        addWarnings(a, o.value.warnings);
        if (!o.value.allowed) refusal ??= denial(webhookName(invocations[i]), o.value.result, a);
      });
      if (refusal) throw refusal;
    },
    close: () => source.close(),
    ready: () => source.ready(),
  };
}
