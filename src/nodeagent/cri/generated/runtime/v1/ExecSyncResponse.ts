// Original file: proto/cri/api.proto


export interface ExecSyncResponse {
  /**
   * Captured command stdout output.
   */
  'stdout'?: (Buffer | Uint8Array | string);
  /**
   * Captured command stderr output.
   */
  'stderr'?: (Buffer | Uint8Array | string);
  /**
   * Exit code the command finished with. Default: 0 (success).
   */
  'exitCode'?: (number);
}

export interface ExecSyncResponse__Output {
  /**
   * Captured command stdout output.
   */
  'stdout': (Buffer);
  /**
   * Captured command stderr output.
   */
  'stderr': (Buffer);
  /**
   * Exit code the command finished with. Default: 0 (success).
   */
  'exitCode': (number);
}
