/**
 * The webhook admission plugins, by kube's names: MutatingAdmissionWebhook (admit) and
 * ValidatingAdmissionWebhook (validate). Each reads its configurations through the registry and
 * stays current with a watch; close() stops the watch.
 */
import type { WebhookAdmissionOptions } from './dispatcher';
import { mutatingWebhookAdmission } from './mutating';
import { validatingWebhookAdmission, type ClosableAdmission } from './validating';

export { mutatingWebhookAdmission, validatingWebhookAdmission, type ClosableAdmission };

/** the two plugins by the names --enable-admission-plugins uses */
export const webhookAdmissionPlugins: Readonly<Record<'MutatingAdmissionWebhook' | 'ValidatingAdmissionWebhook', (opts: WebhookAdmissionOptions) => ClosableAdmission>> =
  Object.freeze({
    MutatingAdmissionWebhook: mutatingWebhookAdmission,
    ValidatingAdmissionWebhook: validatingWebhookAdmission,
  });
export type { WebhookAdmissionAttributes, WebhookAdmissionOptions, WebhookLogger } from './dispatcher';
export type { ServiceRouting } from './client';
