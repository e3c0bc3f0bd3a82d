/**
 * The behaviour of a declared subresource (KindDefinition.subresources) inside the registry. A
 * handler implements the verbs its declaration lists: `partial` ones get/update/patch, `action`
 * ones create. Handlers are registered by `<group>/<resource>/<name>` in ./index.ts.
 */
import type { KubeObject } from '../../kind';
import type { RegistryContext } from '../context';
import type { GetOptions, PatchType, Target, WriteOptions, WriteResult } from '../types';

export interface SubresourceHandler {
  get?(ctx: RegistryContext, target: Target, options: GetOptions): Promise<KubeObject>;
  update?(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
  patch?(ctx: RegistryContext, target: Target, type: PatchType, body: string, options: WriteOptions & { force?: boolean }): Promise<WriteResult>;
  /** POST: `body` has been decoded as one of the declaration's bodyKinds */
  create?(ctx: RegistryContext, target: Target, body: KubeObject, options: WriteOptions): Promise<WriteResult>;
}
