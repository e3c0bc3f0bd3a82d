// Original file: proto/cri/api.proto

import type { MountPropagation as _runtime_v1_MountPropagation, MountPropagation__Output as _runtime_v1_MountPropagation__Output } from '../../runtime/v1/MountPropagation';

/**
 * Mount specifies a host volume to mount into a container.
 */
export interface Mount {
  /**
   * Path of the mount within the container.
   */
  'containerPath'?: (string);
  /**
   * Path of the mount on the host. If the hostPath doesn't exist, then runtimes
   * should report error. If the hostpath is a symbolic link, runtimes should
   * follow the symlink and mount the real destination to container.
   */
  'hostPath'?: (string);
  /**
   * If set, the mount is read-only.
   */
  'readonly'?: (boolean);
  /**
   * If set, the mount needs SELinux relabeling.
   */
  'selinuxRelabel'?: (boolean);
  /**
   * Requested propagation mode.
   */
  'propagation'?: (_runtime_v1_MountPropagation);
}

/**
 * Mount specifies a host volume to mount into a container.
 */
export interface Mount__Output {
  /**
   * Path of the mount within the container.
   */
  'containerPath': (string);
  /**
   * Path of the mount on the host. If the hostPath doesn't exist, then runtimes
   * should report error. If the hostpath is a symbolic link, runtimes should
   * follow the symlink and mount the real destination to container.
   */
  'hostPath': (string);
  /**
   * If set, the mount is read-only.
   */
  'readonly': (boolean);
  /**
   * If set, the mount needs SELinux relabeling.
   */
  'selinuxRelabel': (boolean);
  /**
   * Requested propagation mode.
   */
  'propagation': (_runtime_v1_MountPropagation__Output);
}
