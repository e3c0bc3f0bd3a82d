/**
 * The one place where StorageError becomes ApiError, as kube's storage/errors InterpretXError do:
 * NotFound -> 404, Exists -> 409 AlreadyExists, Conflict -> 409 Conflict, Compacted -> 410,
 * FutureRevision -> 504 Too large resource version, Unavailable/TooSlow/Closed -> 504/503, anything
 * else -> 500. ApiErrors pass through untouched.
 */
import { ApiError, errors, isApiError } from '../errors';
import { isStorageError } from '../../storage/store';
import type { KindDefinition } from '../kind';

/** kube's optimistic-lock message for a stale resourceVersion */
export const OPTIMISTIC_LOCK_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function qualifiedResource(kind: KindDefinition): { group: string; resource: string } {
  return { group: kind.group, resource: kind.resource };
}

export function translateError(err: unknown, kind: KindDefinition, name = '', currentRevision?: number): ApiError {
  if (isApiError(err)) return err;
  const qr = qualifiedResource(kind);
  if (isStorageError(err)) {
    switch (err.code) {
      case 'NotFound':
        return errors.notFound(qr, name);
      case 'Exists':
        return errors.alreadyExists(qr, name);
      case 'Conflict':
        return errors.conflict(qr, name, OPTIMISTIC_LOCK_MESSAGE);
      case 'Compacted':
        return errors.expired('The resourceVersion for the provided list is too old.');
      case 'FutureRevision':
        return errors.tooLargeResourceVersion(err.revision ?? 0, currentRevision ?? 0);
      case 'TooSlow':
      case 'Unavailable':
        // kube: storage unreachable -> ServerTimeout (504) with a retry hint
        return errors.timeout(`The operation could not be completed at this time, please try again.`, 2);
      case 'Closed':
        return errors.unavailable('the storage is shutting down');
    }
  }
  return errors.internal(err instanceof Error ? err.message : String(err));
}
