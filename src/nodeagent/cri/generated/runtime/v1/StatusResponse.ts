// Original file: proto/cri/api.proto

import type { RuntimeStatus as _runtime_v1_RuntimeStatus, RuntimeStatus__Output as _runtime_v1_RuntimeStatus__Output } from '../../runtime/v1/RuntimeStatus';

export interface StatusResponse {
  /**
   * Status of the Runtime.
   */
  'status'?: (_runtime_v1_RuntimeStatus | null);
  /**
   * Info is extra information of the Runtime. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. plugins used by the container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info'?: ({[key: string]: string});
}

export interface StatusResponse__Output {
  /**
   * Status of the Runtime.
   */
  'status': (_runtime_v1_RuntimeStatus__Output | null);
  /**
   * Info is extra information of the Runtime. The key could be arbitrary string, and
   * value should be in json format. The information could include anything useful for
   * debug, e.g. plugins used by the container runtime.
   * It should only be returned non-empty when Verbose is true.
   */
  'info': ({[key: string]: string});
}
