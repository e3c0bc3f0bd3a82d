// Original file: proto/cri/api.proto

import type { FilesystemUsage as _runtime_v1_FilesystemUsage, FilesystemUsage__Output as _runtime_v1_FilesystemUsage__Output } from '../../runtime/v1/FilesystemUsage';

export interface ImageFsInfoResponse {
  /**
   * Information of image filesystem(s).
   */
  'imageFilesystems'?: (_runtime_v1_FilesystemUsage)[];
}

export interface ImageFsInfoResponse__Output {
  /**
   * Information of image filesystem(s).
   */
  'imageFilesystems': (_runtime_v1_FilesystemUsage__Output)[];
}
