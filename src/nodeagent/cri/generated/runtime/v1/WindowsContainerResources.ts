// Original file: proto/cri/api.proto

import type { Long } from '@grpc/proto-loader';

/**
 * WindowsContainerResources specifies Windows specific configuration for
 * resources.
 */
export interface WindowsContainerResources {
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares'?: (number | string | Long);
  /**
   * Number of CPUs available to the container. Default: 0 (not specified).
   */
  'cpuCount'?: (number | string | Long);
  /**
   * Specifies the portion of processor cycles that this container can use as a percentage times 100.
   */
  'cpuMaximum'?: (number | string | Long);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes'?: (number | string | Long);
  /**
   * Specifies the size of the rootfs / scratch space in bytes to be configured for this container. Default: 0 (not specified).
   */
  'rootfsSizeInBytes'?: (number | string | Long);
}

/**
 * WindowsContainerResources specifies Windows specific configuration for
 * resources.
 */
export interface WindowsContainerResources__Output {
  /**
   * CPU shares (relative weight vs. other containers). Default: 0 (not specified).
   */
  'cpuShares': (string);
  /**
   * Number of CPUs available to the container. Default: 0 (not specified).
   */
  'cpuCount': (string);
  /**
   * Specifies the portion of processor cycles that this container can use as a percentage times 100.
   */
  'cpuMaximum': (string);
  /**
   * Memory limit in bytes. Default: 0 (not specified).
   */
  'memoryLimitInBytes': (string);
  /**
   * Specifies the size of the rootfs / scratch space in bytes to be configured for this container. Default: 0 (not specified).
   */
  'rootfsSizeInBytes': (string);
}
