/**
 * A request the server refused: its Status, with helpers for the reasons controllers act on
 * (client-go's apierrors.IsNotFound, IsConflict, ...).
 */

export interface StatusObject {
  kind: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; causes?: { type?: string; message?: string; field?: string }[]; retryAfterSeconds?: number };
}

export class ApiError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: StatusObject;

  constructor(code: number, status: StatusObject) {
    super(status.message || `the server answered ${code}`);
    this.name = 'ApiError';
    this.code = status.code || code;
    this.reason = status.reason ?? '';
    this.status = status;
  }
}

const reasonIs = (reason: string, code: number) => (err: unknown): boolean =>
  err instanceof ApiError && (err.reason === reason || (err.reason === '' && err.code === code));

export const isNotFound = reasonIs('NotFound', 404);
export const isAlreadyExists = reasonIs('AlreadyExists', 409);
export const isConflict = reasonIs('Conflict', 409);
export const isInvalid = reasonIs('Invalid', 422);
export const isForbidden = reasonIs('Forbidden', 403);
export const isTooManyRequests = reasonIs('TooManyRequests', 429);

/** the watch's resourceVersion is older than what the server keeps: relist (HTTP 410, or reason Expired/Gone) */
export function isResourceExpired(err: unknown): boolean {
  return err instanceof ApiError && (err.code === 410 || err.reason === 'Expired' || err.reason === 'Gone');
}
