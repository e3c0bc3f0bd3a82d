/**
 * Custom resources, as kube's apiextensions-apiserver serves them inside kube-apiserver: the CRD
 * controllers (crd-controller.ts) follow CustomResourceDefinitions through the registry and serve
 * their kinds in the Scheme; `registry` is the registry the HTTP layer should call, which converts
 * custom objects of webhook-converted CRDs at its edge (with-custom-resources.ts).
 *
 *   const crs = customResources({ registry, scheme, logger });
 *   await crs.start();            // the stored CRDs are served from here on
 *   createApiServerApp({ registry: crs.registry, ... });
 */
import type pino from 'pino';
import type { Registry } from '../registry/types';
import type { Scheme } from '../scheme';
import { CrdController } from './crd-controller';
import type { CustomResource } from './custom-resource';
import { withCustomResources } from './with-custom-resources';
import { WebhookConverter } from './conversion/webhook-converter';
import { resolveService } from './conversion/service-resolver';

export { apiextensionsKinds } from './crd-kinds';

export interface CustomResourcesOptions {
  /** the registry the controllers and conversions call (a client of the API) */
  registry: Registry;
  scheme: Scheme;
  logger?: pino.Logger;
  clock?: () => Date;
  retryMs?: number;
  cleanupWaitMs?: number;
  /** time limit of a conversion webhook call (default 30 s) */
  webhookTimeoutMs?: number;
}

export interface CustomResources {
  /** the registry for the HTTP layer: custom objects converted by webhook at its edge */
  readonly registry: Registry;
  /** serve the stored definitions, then follow changes */
  start(): Promise<void>;
  /** resolves when no definition change is being processed (tests) */
  idle(): Promise<void>;
  close(): void;
}

export function customResources(o: CustomResourcesOptions): CustomResources {
  const controller = new CrdController({ registry: o.registry, scheme: o.scheme, logger: o.logger, clock: o.clock, retryMs: o.retryMs, cleanupWaitMs: o.cleanupWaitMs });
  const converters = new WeakMap<CustomResource, WebhookConverter>();
  const converterOf = (cr: CustomResource): WebhookConverter => {
    let c = converters.get(cr);
    if (!c) {
      const webhook = cr.webhook!;
      const service = webhook.clientConfig.service;
      c = new WebhookConverter({
        group: cr.group,
        kind: cr.names.kind,
        clientConfig: webhook.clientConfig,
        reviewVersions: webhook.reviewVersions,
        resolve: service ? () => resolveService({ registry: o.registry, scheme: o.scheme }, service) : undefined,
        timeoutMs: o.webhookTimeoutMs,
      });
      converters.set(cr, c);
    }
    return c;
  };
  return {
    registry: withCustomResources({ registry: o.registry, resourceOf: (k) => controller.resourceOf(k), converterOf }),
    start: () => controller.start(),
    idle: () => controller.idle(),
    close: () => controller.close(),
  };
}
