/**
 * A failed CRI call: the call's name and the gRPC status. The message keeps grpc-go's
 * `rpc error: code = NotFound desc = ...` wording, which kubelet carries into events and pod
 * statuses (ErrImagePull, CreateContainerError), so that our messages read as kube's.
 */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/** grpc-go's names of the status codes (codes.Code.String()) */
const GO_CODE_NAMES: Record<number, string> = {
  [GrpcStatus.OK]: 'OK',
  [GrpcStatus.CANCELLED]: 'Canceled',
  [GrpcStatus.UNKNOWN]: 'Unknown',
  [GrpcStatus.INVALID_ARGUMENT]: 'InvalidArgument',
  [GrpcStatus.DEADLINE_EXCEEDED]: 'DeadlineExceeded',
  [GrpcStatus.NOT_FOUND]: 'NotFound',
  [GrpcStatus.ALREADY_EXISTS]: 'AlreadyExists',
  [GrpcStatus.PERMISSION_DENIED]: 'PermissionDenied',
  [GrpcStatus.RESOURCE_EXHAUSTED]: 'ResourceExhausted',
  [GrpcStatus.FAILED_PRECONDITION]: 'FailedPrecondition',
  [GrpcStatus.ABORTED]: 'Aborted',
  [GrpcStatus.OUT_OF_RANGE]: 'OutOfRange',
  [GrpcStatus.UNIMPLEMENTED]: 'Unimplemented',
  [GrpcStatus.INTERNAL]: 'Internal',
  [GrpcStatus.UNAVAILABLE]: 'Unavailable',
  [GrpcStatus.DATA_LOSS]: 'DataLoss',
  [GrpcStatus.UNAUTHENTICATED]: 'Unauthenticated',
};

export class CriError extends Error {
  override readonly name = 'CriError';
  /** e.g. `RuntimeService/RunPodSandbox` */
  readonly call: string;
  /** the gRPC status code (`status.NOT_FOUND` ...) */
  readonly code: number;
  /** the status's description, as the runtime wrote it */
  readonly details: string;
  /** `rpc error: code = <Name> desc = <details>`, grpc-go's form */
  readonly rpcMessage: string;

  constructor(call: string, code: number, details: string) {
    const rpcMessage = `rpc error: code = ${GO_CODE_NAMES[code] ?? `Code(${code})`} desc = ${details}`;
    super(`${call}: ${rpcMessage}`);
    this.call = call;
    this.code = code;
    this.details = details;
    this.rpcMessage = rpcMessage;
  }

  static fromServiceError(call: string, err: ServiceError): CriError {
    return new CriError(call, err.code ?? GrpcStatus.UNKNOWN, err.details ?? err.message);
  }
}

/** true when `err` is a CriError with the given status (NotFound answers for gone sandboxes ...) */
export function isCriStatus(err: unknown, code: number): err is CriError {
  return err instanceof CriError && err.code === code;
}
