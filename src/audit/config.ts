/** The audit settings resolved from the --audit-* flags (spec 2, part 6). */
import type { BackendSettings } from './backend';

export interface AuditConfig {
  /** --audit-policy-file; without it nothing is audited (kube) */
  readonly policyFile?: string;
  readonly log: {
    /** --audit-log-path; unset = no log back end; `-` = standard output */
    readonly path?: string;
    readonly format: 'json' | 'legacy';
    readonly maxAge: number;
    readonly maxBackup: number;
    readonly maxSize: number;
    readonly compress: boolean;
    readonly settings: BackendSettings;
  };
  readonly webhook: {
    /** --audit-webhook-config-file; unset = no webhook back end */
    readonly configFile?: string;
    readonly initialBackoffMs: number;
    readonly settings: BackendSettings;
  };
}
