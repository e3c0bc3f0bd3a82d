/** Errors of the HTTP layer itself (paths and methods), with kube's messages. */
import { ApiError } from '../api/errors';

/** an unknown path, group, version or resource */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** a method the path does not serve (kube's NewMethodNotSupported) */
export function methodNotSupported(resource: string, group: string, verb: string): ApiError {
  const qualified = group ? `${resource}.${group}` : resource;
  return new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualified}"`, { group, kind: resource });
}
