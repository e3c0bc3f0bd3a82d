/**
 * Request bodies: read with a size bound checked while streaming (never buffered past the limit),
 * then decoded by the codec the Content-Type names.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, errors } from '../api/errors';
import { MAX_NESTING_DEPTH, nestingDepth } from '../api/nesting';
import type { KindDefinition } from '../api/kind';
import type { PatchType } from '../api/registry/types';
import { codecFor, mediaTypesServed } from './codecs';

/** kube's --max-request-body-bytes default: 3 MiB */
export const defaultMaxRequestBodyBytes = 3 * 1024 * 1024;

function tooLarge(limit: number): ApiError {
  return errors.tooLarge(`Request entity too large: limit is ${limit}`);
}

/** read the whole body, failing with 413 as soon as it passes `limit` bytes */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (err?: unknown) => {
      if (done) return;
      done = true;
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted);
      if (err) reject(err);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // stop reading; the response closes the connection so the rest is never buffered
        req.pause();
        finish(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (err: Error) => finish(errors.badRequest(`error reading request body: ${err.message}`));
    const onAborted = () => finish(errors.badRequest('the client closed the request body'));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted);
  });
}

/** the media type of a Content-Type header, lower-cased and without parameters; '' when absent */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function unsupported(accepted: string[]): ApiError {
  return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
}

/** decode a create/update body into an object; the default type is JSON, as kube assumes */
export function decodeObject(body: Buffer, contentType: string | undefined, kind?: KindDefinition): Record<string, unknown> {
  const mt = mediaTypeOf(contentType) || 'application/json';
  const codec = codecFor(mt);
  if (!codec) throw unsupported(mediaTypesServed());
  if (body.length === 0) throw errors.badRequest('the body of the request was empty');
  const value = codec.decode(body, { kind });
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: the body is not an object`);
  }
  if (nestingDepth(value, MAX_NESTING_DEPTH) > MAX_NESTING_DEPTH) {
    throw errors.badRequest(`couldn't get version/kind; json parse error: exceeded max depth of ${MAX_NESTING_DEPTH}`);
  }
  return value as Record<string, unknown>;
}

const patchTypes: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/**
 * The PatchType a PATCH Content-Type names; 415 listing kube's patch types otherwise. Without
 * server-side apply (the ServerSideApply gate off) apply patches are such a 415 too, as in kube.
 */
export function patchTypeOf(contentType: string | undefined, o: { serverSideApply?: boolean } = {}): PatchType {
  const served = Object.keys(patchTypes).filter((mt) => o.serverSideApply !== false || patchTypes[mt] !== 'apply');
  const mt = mediaTypeOf(contentType);
  if (!served.includes(mt)) throw unsupported(served);
  return patchTypes[mt];
}
