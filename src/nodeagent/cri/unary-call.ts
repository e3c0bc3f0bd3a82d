/**
 * One unary CRI call as a promise: the deadline set, a failure turned into a CriError that names
 * the call.
 */
import * as grpc from '@grpc/grpc-js';
import { CriError } from './cri-error';

type UnaryMethod = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (err: grpc.ServiceError | null, response?: unknown) => void,
) => grpc.ClientUnaryCall;

export interface UnaryCallOptions {
  /** milliseconds from now; none when undefined (image pulls, ExecSync without a timeout) */
  timeoutMs?: number;
}

/**
 * `client[method](request)`, resolved with the response or rejected with a CriError named
 * `<service>/<method>`. The response type is the caller's word: the typed clients pass the generated
 * `__Output` type of the method.
 */
export function unaryCall<Res>(
  client: grpc.Client,
  service: string,
  method: string,
  request: object,
  options: UnaryCallOptions,
): Promise<Res> {
  const call = `${service}/${method}`;
  const fn = (client as unknown as Record<string, UnaryMethod>)[method];
  if (typeof fn !== 'function') return Promise.reject(new Error(`${call}: no such method in the CRI definition`));
  const callOptions: grpc.CallOptions = options.timeoutMs === undefined ? {} : { deadline: Date.now() + options.timeoutMs };
  return new Promise<Res>((resolve, reject) => {
    fn.call(client, request, new grpc.Metadata(), callOptions, (err, response) => {
      if (err) reject(CriError.fromServiceError(call, err));
      else resolve(response as Res);
    });
  });
}
