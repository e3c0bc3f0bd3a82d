/**
 * API errors: every failure the API reports is an ApiError that carries a metav1 Status
 * with the reason and code kube-apiserver would use. The HTTP layer writes `status` as the body.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'UnsupportedMediaType'
  | 'RequestEntityTooLarge'
  | 'TooManyRequests'
  | 'Timeout'
  | 'ServerTimeout'
  | 'InternalError'
  | 'ServiceUnavailable';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { resourceVersion?: string; continue?: string; remainingItemCount?: number };
  status: 'Success' | 'Failure';
  message?: string;
  reason?: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class ApiError extends Error {
  readonly status: Status;

  constructor(code: number, reason: StatusReason | undefined, message: string, details?: StatusDetails, metadata: Status['metadata'] = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message, code };
    if (reason) this.status.reason = reason;
    if (details) this.status.details = details;
  }

  get code(): number {
    return this.status.code;
  }
}

/** a group-qualified resource as kube names it in messages: `deployments.apps`, `pods` */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(qr: QualifiedResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

export const errors = {
  notFound(qr: QualifiedResource, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualified(qr)} "${name}" not found`, { name, group: qr.group, kind: qr.resource });
  },
  alreadyExists(qr: QualifiedResource, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${qualified(qr)} "${name}" already exists`, { name, group: qr.group, kind: qr.resource });
  },
  conflict(qr: QualifiedResource, name: string, why: string): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(qr)} "${name}": ${why}`, {
      name,
      group: qr.group,
      kind: qr.resource,
    });
  },
  /** 422: `kind` is the Kind (Deployment), as kube puts it in details.kind for Invalid */
  invalid(kind: string, group: string, name: string, causes: StatusCause[]): ApiError {
    const summary = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(', ');
    const groupKind = group ? `${kind}.${group}` : kind;
    return new ApiError(422, 'Invalid', `${groupKind} "${name}" is invalid: ${causes.length > 1 ? '[' + summary + ']' : summary}`, {
      name,
      group,
      kind,
      causes,
    });
  },
  /** 401: kube never says more than this to the client (the reason goes to the log) */
  unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  },
  /**
   * 403 as kube's NewForbidden words it: `pods "x" is forbidden: why`, `pods is forbidden: why`
   * without a name, `forbidden: why` without a resource
   */
  forbidden(qr: QualifiedResource, name: string, why: string): ApiError {
    const subject = qr.resource ? (name ? `${qualified(qr)} "${name}"` : qualified(qr)) : '';
    const message = subject ? `${subject} is forbidden: ${why}` : `forbidden: ${why}`;
    return new ApiError(403, 'Forbidden', message, { name: name || undefined, group: qr.group || undefined, kind: qr.resource || undefined });
  },
  badRequest(message: string, causes?: StatusCause[]): ApiError {
    return new ApiError(400, 'BadRequest', message, causes ? { causes } : undefined);
  },
  methodNotAllowed(message: string): ApiError {
    return new ApiError(405, 'MethodNotAllowed', message);
  },
  notAcceptable(message: string): ApiError {
    return new ApiError(406, 'NotAcceptable', message);
  },
  unsupportedMediaType(contentType: string): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`);
  },
  tooLarge(message = 'the request body is too large'): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', message);
  },
  /** 410 Gone: watch or Exact read of a compacted revision */
  gone(message: string): ApiError {
    return new ApiError(410, 'Gone', message);
  },
  /** 410 Expired: a continue token whose revision was compacted; carries a fresh token when given */
  expired(message: string, continueToken?: string): ApiError {
    return new ApiError(410, 'Expired', message, undefined, continueToken ? { continue: continueToken } : {});
  },
  /** 504 for a resourceVersion newer than the store reaches in time */
  tooLargeResourceVersion(requested: number, current: number): ApiError {
    return new ApiError(504, 'Timeout', `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  },
  timeout(message: string, retryAfterSeconds = 1): ApiError {
    return new ApiError(504, 'Timeout', message, { retryAfterSeconds });
  },
  internal(message: string): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] });
  },
  unavailable(message: string): ApiError {
    return new ApiError(503, 'ServiceUnavailable', message);
  },
};

export function isApiError(err: unknown): err is ApiError {
  return err instanceof ApiError;
}
