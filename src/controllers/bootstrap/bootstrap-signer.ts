/**
 * kube's bootstrapsigner (pkg/controller/bootstrap/bootstrapsigner.go): the `cluster-info` ConfigMap
 * in kube-public carries, for each unexpired bootstrap token marked usage-bootstrap-signing, a
 * detached JWS of its `kubeconfig` under `jws-kubeconfig-<token id>` (HS256, key `<id>.<secret>`,
 * kid the token id), so a joining node holding a token can trust the kubeconfig. Signatures of
 * tokens that are gone or no longer sign are removed.
 */
import { CompactSign } from 'jose';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { ControllerDefinition } from '../types';
import { isBootstrapToken, msUntilExpiry, secretString, tokenId } from './bootstrap-tokens';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO_NAME = 'cluster-info';
export const JWS_PREFIX = 'jws-kubeconfig-';
const KUBECONFIG_KEY = 'kubeconfig';

/** kube's ComputeDetachedSignature: the compact JWS with its payload left out (`header..signature`) */
export async function detachedSignature(content: string, id: string, secret: string): Promise<string> {
  const jws = await new CompactSign(Buffer.from(content)).setProtectedHeader({ alg: 'HS256', kid: id }).sign(Buffer.from(`${id}.${secret}`));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** the signatures the tokens call for, by token id */
export async function wantedSignatures(content: string, tokens: readonly KubeObject[], now: number): Promise<Map<string, string>> {
  const sigs = new Map<string, string>();
  for (const t of tokens) {
    const id = tokenId(t);
    if (!id || secretString(t, 'usage-bootstrap-signing') !== 'true') continue;
    const left = msUntilExpiry(t, now);
    if (left !== undefined && left <= 0) continue;
    const secret = secretString(t, 'token-secret');
    if (!secret) continue;
    sigs.set(id, await detachedSignature(content, id, secret));
  }
  return sigs;
}

export const bootstrapSignerController: ControllerDefinition = {
  name: 'bootstrapsigner',
  async start(ctx) {
    // one key: everything funnels into re-signing cluster-info
    const KEY = 'cluster-info';
    const queue = new WorkQueue<string>({ name: 'bootstrap_signer_queue' });
    const configMaps = ctx.informers.informerFor(RESOURCES.configMaps);
    const secrets = ctx.informers.informerFor(RESOURCES.secrets);
    const onConfigMap = (cm: KubeObject) => {
      if (cm.metadata?.namespace === CLUSTER_INFO_NAMESPACE && cm.metadata?.name === CLUSTER_INFO_NAME) queue.add(KEY);
    };
    const onSecret = (s: KubeObject) => {
      if (isBootstrapToken(s)) queue.add(KEY);
    };
    configMaps.addEventHandler({ add: onConfigMap, update: (_o, cm) => onConfigMap(cm) });
    secrets.addEventHandler({ add: onSecret, update: (_o, s) => onSecret(s), delete: onSecret });
    ctx.signal.addEventListener('abort', () => queue.shutDown(), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;
    queue.add(KEY);
    await runWorkers(
      queue,
      1,
      async () => {
        const cm = configMaps.store.getObject(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO_NAME);
        const data = (cm?.data ?? {}) as Record<string, string>;
        const content = data[KUBECONFIG_KEY];
        if (!cm || content === undefined) return;
        const tokens = secrets.store.list().filter(isBootstrapToken);
        const now = Date.now();
        const sigs = await wantedSignatures(content, tokens, now);
        const next: Record<string, string> = {};
        for (const [k, v] of Object.entries(data)) if (!k.startsWith(JWS_PREFIX)) next[k] = v;
        for (const [id, sig] of sigs) next[JWS_PREFIX + id] = sig;
        const changed = Object.keys(next).length !== Object.keys(data).length || Object.entries(next).some(([k, v]) => data[k] !== v);
        // come back when the next signing token expires, to drop its signature
        const lefts = tokens.map((t) => msUntilExpiry(t, now)).filter((l): l is number => l !== undefined && l > 0);
        if (lefts.length) queue.addAfter(KEY, Math.min(...lefts) + 100);
        if (!changed) return;
        try {
          await ctx.client.update(RESOURCES.configMaps, { ...cm, data: next });
        } catch (err) {
          if (isNotFound(err)) return;
          if (isConflict(err)) queue.addAfter(KEY, 100);
          else throw err;
        }
      },
      (key, err) => ctx.logger.error({ err, key }, 'signing cluster-info failed'),
    );
  },
};
