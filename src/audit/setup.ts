/**
 * Auditing as the flags configure it: the policy and the union of the log and webhook back ends.
 * As in kube, there is none without a policy file or without a back end. Bad files stop start-up
 * with one line naming the file.
 */
import type pino from 'pino';
import { createBackend, unionBackend } from './backend';
import type { AuditConfig } from './config';
import { createLogSink } from './log-sink';
import { loadPolicyFile } from './policy';
import type { Policy } from './policy';
import type { AuditBackend } from './types';
import { createWebhookSink, loadWebhookKubeconfig } from './webhook-sink';

export interface AuditSetup {
  policy: Policy;
  backend: AuditBackend;
}

export function setupAudit(config: AuditConfig, logger: pino.Logger): AuditSetup | undefined {
  if (!config.policyFile) {
    if (config.log.path || config.webhook.configFile) logger.info('No audit policy file: auditing is off');
    return undefined;
  }
  const policy = loadPolicyFile(config.policyFile);
  const backends: AuditBackend[] = [];
  if (config.webhook.configFile) {
    const target = loadWebhookKubeconfig(config.webhook.configFile);
    const sink = createWebhookSink({ target, version: config.webhook.settings.version, initialBackoffMs: config.webhook.initialBackoffMs });
    backends.push(createBackend({ name: 'webhook', sink, settings: config.webhook.settings, logger }));
  }
  if (config.log.path) {
    const l = config.log;
    const sink = createLogSink({ path: l.path!, format: l.format, maxAge: l.maxAge, maxBackup: l.maxBackup, maxSize: l.maxSize, compress: l.compress });
    backends.push(createBackend({ name: 'log', sink, settings: l.settings, logger }));
  }
  if (backends.length === 0) {
    logger.info('No audit back end (--audit-log-path, --audit-webhook-config-file): auditing is off');
    return undefined;
  }
  return { policy, backend: unionBackend(backends) };
}
