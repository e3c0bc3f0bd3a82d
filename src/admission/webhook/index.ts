/**
 * The webhook admission plugins, by kube's names: MutatingAdmissionWebhook (admit) and
 * ValidatingAdmissionWebhook (validate). Each reads its configurations through the registry and
 * stays current with a watch; close() stops the watch.
 */
export { mutatingWebhookAdmission } from './mutating';
export { validatingWebhookAdmission, type ClosableAdmission } from './validating';
export type { WebhookAdmissionAttributes, WebhookAdmissionOptions, WebhookLogger } from './dispatcher';
export type { ServiceRouting } from './client';
