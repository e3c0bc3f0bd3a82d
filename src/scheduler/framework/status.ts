/**
 * What a plugin says about a pod (kube's framework.Status): success is `undefined` (the common case
 * costs nothing); otherwise a code and the reasons kube prints, e.g. `Insufficient cpu`. The
 * scheduler counts the reasons of every node into the FailedScheduling message.
 */

export enum Code {
  Success = 0,
  /** an internal error: the pod is retried with backoff */
  Error = 1,
  /** the node does not fit now; preemption may help */
  Unschedulable = 2,
  /** the node does not fit and preempting pods on it would not change that */
  UnschedulableAndUnresolvable = 3,
  /** a Permit plugin holds the pod */
  Wait = 4,
  /** a Bind plugin passes the pod on to the next one */
  Skip = 5,
}

export class Status {
  readonly code: Code;
  readonly reasons: readonly string[];
  /** the plugin that returned it (set by the framework) */
  failedPlugin?: string;
  readonly error?: Error;

  constructor(code: Code, reasons: readonly string[], error?: Error) {
    this.code = code;
    this.reasons = reasons;
    this.error = error;
  }

  /** kube's Status.Message: the reasons joined by ", " */
  get message(): string {
    return this.reasons.join(', ');
  }

  isUnschedulable(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable;
  }
}

/** a plugin's answer: undefined is success */
export type Result = Status | undefined;

export function unschedulable(...reasons: string[]): Status {
  return new Status(Code.Unschedulable, reasons);
}

export function unresolvable(...reasons: string[]): Status {
  return new Status(Code.UnschedulableAndUnresolvable, reasons);
}

export function errorStatus(err: unknown): Status {
  const e = err instanceof Error ? err : new Error(String(err));
  return new Status(Code.Error, [e.message], e);
}

export const SKIP = new Status(Code.Skip, []);

export function isSuccess(s: Result): boolean {
  return s === undefined || s.code === Code.Success;
}
