import type { FeatureGates } from '../../options/feature-gates';
/** What every resource verb handler gets: the resolved request and the server's dependencies. */
import type { KindDefinition, SubresourceDefinition } from '../../api/kind';
import type { Registry, Target } from '../../api/registry/types';
import type { Admission } from '../../admission/types';
import type { ApiContext } from '../context';
import type { ResourceRequestInfo } from '../request-info';
import type { ConnectBackends } from './connect';

/** 'status', 'scale', or the name of a subresource the kind declares (KindDefinition.subresources) */
export type Subresource = string;

export interface ResourceRequest {
  ctx: ApiContext;
  info: ResourceRequestInfo;
  kind: KindDefinition;
  target: Target;
  subresource?: Subresource;
  /** the declaration of a subresource beyond status and scale */
  declared?: SubresourceDefinition;
}

export interface ResourceDeps {
  registry: Registry;
  /** --feature-gates; undefined = every gate at its default */
  featureGates?: FeatureGates;
  minRequestTimeoutSeconds: number;
  maxRequestBodyBytes: number;
  maxWatchBufferedBytes: number;
  /** registers an open watch's closer for shutdown; returns its unregistration */
  trackWatch(close: () => void): () => void;
  /** the admission chain, for the CONNECT requests that do not go through the registry (exec, attach, proxy) */
  admission?: Admission;
  /** node agents, pods and services that connect subresources reach; unset = they answer 503 */
  connect?: ConnectBackends;
}
