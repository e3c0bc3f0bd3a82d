/**
 * kube 1.20's TokensController (pkg/controller/serviceaccount/tokens_controller.go): every
 * ServiceAccount references a secret `<account>-token-<5 chars>` of type
 * kubernetes.io/service-account-token holding a signed legacy token, the CA bundle and the
 * namespace; token secrets whose account is gone (or was recreated with another uid) are deleted.
 * Without --service-account-private-key-file kube does not start it, and neither do we.
 */
import fs from 'node:fs';
import { loadSigningKey } from '../../auth/serviceaccount/keys';
import { isConflict, isNotFound } from '../../client/errors';
import { RESOURCES } from '../../client/resources';
import type { KubeObject } from '../../client/types';
import { objectKey, splitKey } from '../../client/types';
import { runWorkers, WorkQueue } from '../../client/workqueue';
import type { TokenIssuer } from '../../auth/serviceaccount/token-issuer';
import type { ControllerContext, ControllerDefinition } from '../types';
import { legacyTokenIssuer, randomSuffix, signLegacyToken } from './legacy-token';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
export const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
export const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

interface SecretRef {
  name?: string;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

export function isTokenSecretOf(secret: KubeObject | undefined, sa: KubeObject): boolean {
  if (!secret || secret.type !== SERVICE_ACCOUNT_TOKEN_TYPE) return false;
  const a = secret.metadata?.annotations ?? {};
  if (a[SA_NAME_ANNOTATION] !== sa.metadata?.name) return false;
  return !a[SA_UID_ANNOTATION] || a[SA_UID_ANNOTATION] === sa.metadata?.uid;
}

export const serviceAccountTokenController: ControllerDefinition = {
  name: 'serviceaccount-token',
  async start(ctx) {
    const keyFile = ctx.settings.serviceAccountPrivateKeyFile;
    if (!keyFile) {
      ctx.logger.info('no service account private key: token secrets are not managed');
      return;
    }
    const issuer = legacyTokenIssuer(loadSigningKey(keyFile));
    const caPem = ctx.settings.rootCaFile ? fs.readFileSync(ctx.settings.rootCaFile, 'utf8') : (ctx.client.config.ca ?? '');
    const accountQueue = new WorkQueue<string>({ name: 'serviceaccount_tokens_service' });
    /** token secrets deleted since their account was last synced: kube's removeSecretReference */
    const deletedSecrets = new Map<string, Set<string>>();
    const secretQueue = new WorkQueue<string>({ name: 'serviceaccount_tokens_secret' });
    const accounts = ctx.informers.informerFor(RESOURCES.serviceAccounts);
    const secrets = ctx.informers.informerFor(RESOURCES.secrets);
    accounts.addEventHandler({
      add: (sa) => accountQueue.add(objectKey(sa)),
      update: (_o, sa) => accountQueue.add(objectKey(sa)),
      delete: (sa) => accountQueue.add(objectKey(sa)),
    });
    const onSecret = (s: KubeObject) => {
      if (s.type === SERVICE_ACCOUNT_TOKEN_TYPE) secretQueue.add(objectKey(s));
    };
    secrets.addEventHandler({
      add: onSecret,
      update: (_o, s) => onSecret(s),
      // a deleted token secret: its account needs a new one
      delete: (s) => {
        const name = s.metadata?.annotations?.[SA_NAME_ANNOTATION];
        if (s.type !== SERVICE_ACCOUNT_TOKEN_TYPE || !name) return;
        const key = `${s.metadata?.namespace}/${name}`;
        const gone = deletedSecrets.get(key) ?? new Set<string>();
        deletedSecrets.set(key, gone.add(s.metadata?.name ?? ''));
        accountQueue.add(key);
      },
    });
    ctx.signal.addEventListener('abort', () => (accountQueue.shutDown(), secretQueue.shutDown()), { once: true });
    if (!(await ctx.informers.waitForCacheSync(ctx.signal))) return;

    const tokenSecretsOf = (namespace: string, name: string) =>
      secrets.store.list().filter((s) => s.metadata?.namespace === namespace && s.type === SERVICE_ACCOUNT_TOKEN_TYPE && s.metadata?.annotations?.[SA_NAME_ANNOTATION] === name);

    const deleteSecret = async (s: KubeObject) => {
      try {
        await ctx.client.delete(RESOURCES.secrets, s.metadata?.namespace, s.metadata?.name ?? '', { preconditions: { uid: s.metadata?.uid } });
      } catch (err) {
        if (!isNotFound(err) && !isConflict(err)) throw err;
      }
    };

    const syncAccount = async (key: string) => {
      const { namespace = '', name } = splitKey(key);
      const sa = accounts.store.get(key);
      if (!sa) {
        for (const s of tokenSecretsOf(namespace, name)) await deleteSecret(s);
        return;
      }
      if (sa.metadata?.deletionTimestamp) return;
      const gone = deletedSecrets.get(key);
      deletedSecrets.delete(key);
      let refs = (sa.secrets as SecretRef[] | undefined) ?? [];
      if (gone && refs.some((r) => gone.has(r.name ?? ''))) {
        const updated = await updateAccountSecrets(ctx, sa, (rs) => rs.filter((r) => !gone.has(r.name ?? '')));
        if (!updated) return;
        refs = (updated.secrets as SecretRef[] | undefined) ?? [];
      }
      for (const r of refs) {
        // a secret we just created may not be in the cache yet: ask the server (kube's fetchOnCacheMiss)
        let secret = secrets.store.getObject(namespace, r.name ?? '');
        if (!secret && r.name) secret = await ctx.client.get(RESOURCES.secrets, namespace, r.name).catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
        if (isTokenSecretOf(secret, sa)) return;
      }
      await ensureToken(ctx, sa, { issuer, caPem, deleteSecret });
    };

    const syncSecret = async (key: string) => {
      const secret = secrets.store.get(key);
      if (!secret) return;
      const { namespace = '' } = splitKey(key);
      const saName = secret.metadata?.annotations?.[SA_NAME_ANNOTATION] ?? '';
      let sa = accounts.store.getObject(namespace, saName);
      if (!sa || !isTokenSecretOf(secret, sa)) {
        // the cache may lag a just-created account: ask the server before deleting (kube's fetchOnCacheMiss)
        try {
          sa = await ctx.client.get(RESOURCES.serviceAccounts, namespace, saName);
        } catch (err) {
          if (!isNotFound(err)) throw err;
          sa = undefined;
        }
      }
      if (!sa || !isTokenSecretOf(secret, sa)) return deleteSecret(secret);
      // a token secret made by hand (annotated with its account) gets its token, CA and namespace
      const data = (secret.data ?? {}) as Record<string, string>;
      const wanted = await tokenData({ issuer, caPem, sa, secretName: secret.metadata?.name ?? '', have: data });
      if (!wanted) return;
      const annotations = { ...secret.metadata?.annotations, [SA_UID_ANNOTATION]: sa.metadata?.uid ?? '' };
      try {
        await ctx.client.update(RESOURCES.secrets, { ...secret, metadata: { ...secret.metadata, annotations }, data: { ...data, ...wanted } });
      } catch (err) {
        if (isConflict(err)) secretQueue.addAfter(key, 100);
        else if (!isNotFound(err)) throw err;
      }
    };

    const onError = (key: string, err: unknown) => ctx.logger.error({ err, key }, 'syncing a service account token failed');
    const workers = Math.max(1, ctx.settings.concurrentServiceAccountTokenSyncs);
    await Promise.all([runWorkers(accountQueue, workers, syncAccount, onError), runWorkers(secretQueue, workers, syncSecret, onError)]);
  },
};

/** create a token secret for `sa` and add it to the account's secrets (kube's ensureReferencedToken) */
async function ensureToken(
  ctx: ControllerContext,
  sa: KubeObject,
  o: { issuer: TokenIssuer; caPem: string; deleteSecret: (s: KubeObject) => Promise<void> },
): Promise<void> {
  const namespace = sa.metadata?.namespace ?? '';
  const saName = sa.metadata?.name ?? '';
  const saUid = sa.metadata?.uid ?? '';
  // kube limits the generated name to a valid secret name
  const secretName = `${saName.slice(0, 253 - '-token-xxxxx'.length)}-token-${randomSuffix()}`;
  const data = (await tokenData({ issuer: o.issuer, caPem: o.caPem, sa, secretName, have: {} })) ?? {};
  const created = await ctx.client.create(RESOURCES.secrets, namespace, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName, annotations: { [SA_NAME_ANNOTATION]: saName, [SA_UID_ANNOTATION]: saUid } },
    type: SERVICE_ACCOUNT_TOKEN_TYPE,
    data,
  });
  let referenced: KubeObject | undefined;
  try {
    referenced = await updateAccountSecrets(ctx, sa, (refs) => [...refs, { name: secretName }]);
  } catch (err) {
    await o.deleteSecret(created);
    throw err;
  }
  if (!referenced) await o.deleteSecret(created);
}

/**
 * the data a token secret still lacks (token, ca.crt, namespace), or undefined when it lacks none;
 * kube 1.20 fills the CA and namespace of a secret that has a token, and mints one when it has none
 */
async function tokenData(o: { issuer: TokenIssuer; caPem: string; sa: KubeObject; secretName: string; have: Record<string, string> }): Promise<Record<string, string> | undefined> {
  const namespace = o.sa.metadata?.namespace ?? '';
  const out: Record<string, string> = {};
  if (o.caPem && !o.have['ca.crt']) out['ca.crt'] = b64(o.caPem);
  if (!o.have.namespace) out.namespace = b64(namespace);
  if (!o.have.token) {
    const token = await signLegacyToken(o.issuer, {
      namespace,
      serviceAccountName: o.sa.metadata?.name ?? '',
      serviceAccountUid: o.sa.metadata?.uid ?? '',
      secretName: o.secretName,
    });
    out.token = b64(token);
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * change the account's `secrets` from its newest version, retrying conflicts; undefined when the
 * account is gone or was recreated (another uid)
 */
async function updateAccountSecrets(ctx: ControllerContext, sa: KubeObject, change: (refs: SecretRef[]) => SecretRef[]): Promise<KubeObject | undefined> {
  const namespace = sa.metadata?.namespace ?? '';
  const name = sa.metadata?.name ?? '';
  for (let attempt = 0; ; attempt++) {
    let live: KubeObject;
    try {
      live = await ctx.client.get(RESOURCES.serviceAccounts, namespace, name);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    if (live.metadata?.uid !== sa.metadata?.uid) return undefined;
    try {
      return await ctx.client.update(RESOURCES.serviceAccounts, { ...live, secrets: change((live.secrets as SecretRef[] | undefined) ?? []) });
    } catch (err) {
      if (!isConflict(err) || attempt >= 5) throw err;
    }
  }
}
