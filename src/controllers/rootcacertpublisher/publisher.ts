/**
 * kube's root-ca-cert-publisher (pkg/controller/certificates/rootcacertpublisher): the ConfigMap
 * `kube-root-ca.crt` in every namespace holds `ca.crt`, the CA bundle clients should trust (from
 * --root-ca-file, else the CA of the manager's kubeconfig). A changed or deleted copy is restored.
 */
import fs from 'node:fs';
import { isAlreadyExists, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import { namespaceActive } from '../serviceaccount/serviceaccounts-controller';
import type { ControllerDefinition } from '../types';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';

function sameData(a: unknown, b: Record<string, string>): boolean {
  const have = (a ?? {}) as Record<string, string>;
  const keys = Object.keys(have);
  return keys.length === Object.keys(b).length && keys.every((k) => have[k] === b[k]);
}

export const rootCaCertPublisher: ControllerDefinition = {
  name: 'root-ca-cert-publisher',
  async start(ctx) {
    const caPem = ctx.settings.rootCaFile ? fs.readFileSync(ctx.settings.rootCaFile, 'utf8') : (ctx.client.config.ca ?? '');
    const data = { 'ca.crt': caPem };
    const queue = new WorkQueue<string>({ name: 'root_ca_cert_publisher' });
    const namespaces = ctx.informers.informerFor(RESOURCES.namespaces);
    const configMaps = ctx.informers.informerFor(RESOURCES.configMaps);
    namespaces.addEventHandler({ add: (ns) => queue.add(ns.metadata?.name ?? ''), update: (_o, ns) => queue.add(ns.metadata?.name ?? '') });
    const onConfigMap = (cm: KubeObject) => {
      if (cm.metadata?.name === ROOT_CA_CONFIGMAP) queue.add(cm.metadata?.namespace ?? '');
    };
    configMaps.addEventHandler({ update: (_o, cm) => onConfigMap(cm), delete: onConfigMap });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    await runWorkers(
      queue,
      1,
      async (namespace) => {
        if (!namespaceActive(namespaces.store.get(namespace))) return;
        const cm = configMaps.store.getObject(namespace, ROOT_CA_CONFIGMAP);
        if (!cm) {
          try {
            await ctx.client.create(RESOURCES.configMaps, namespace, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP }, data });
          } catch (err) {
            // AlreadyExists: the cache lags; NotFound/Forbidden of a namespace being deleted are retried
            if (!isAlreadyExists(err)) throw err;
          }
          return;
        }
        if (sameData(cm.data, data)) return;
        try {
          await ctx.client.update(RESOURCES.configMaps, { ...cm, data: { ...data } });
        } catch (err) {
          if (!isNotFound(err)) throw err;
          queue.add(namespace);
        }
      },
      (key, err) => ctx.logger.error({ err, namespace: key }, 'publishing the root CA failed'),
    );
  },
};
