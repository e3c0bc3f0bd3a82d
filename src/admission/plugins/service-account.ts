/**
 * ServiceAccount (kube's plugin/pkg/admission/serviceaccount): a pod runs as a service account
 * (`default` when it names none) that must exist, and, unless automounting is switched off on the
 * pod or the account, gets the projected token volume `kube-api-access-<5 random>` mounted at
 * /var/run/secrets/kubernetes.io/serviceaccount in every container; the account's image pull
 * secrets are used when the pod has none. Mirror pods are left alone.
 *
 * Ballast runs no service account controller yet: a missing `default` account is created here, as
 * that controller would have done when the namespace appeared (not on dry-run).
 */
import { randomInt } from 'node:crypto';
import type { KubeObject } from '../../api/kind';
import { isApiError } from '../../api/errors';
import type { Admission } from '../types';
import type { AdmissionPluginContext } from '../context';
import { CORE } from '../context';
import { admissionForbidden } from '../forbidden';
import { mutating } from '../chain';
import { allContainers, createdPod, podSpec } from './pod';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
// kube's utilrand alphabet: no vowels, no confusable digits
const ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

/** the projected volume kube's plugin adds: a bound token, the cluster CA and the namespace */
export function tokenVolume(name: string): Record<string, unknown> {
  return {
    name,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

export function serviceAccount(ctx: AdmissionPluginContext): Admission {
  const lookup = async (namespace: string, name: string, dryRun: boolean): Promise<KubeObject | undefined> => {
    const found = await ctx.objects.get(CORE('serviceaccounts'), namespace, name);
    if (found || name !== DEFAULT_SERVICE_ACCOUNT) return found;
    const account: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } };
    if (dryRun) return account;
    const target = ctx.objects.target(CORE('serviceaccounts'), namespace);
    if (!target) return undefined;
    try {
      return (await ctx.objects.registry.create(target, account, { dryRun: false })).object;
    } catch (err) {
      if (isApiError(err) && err.code === 409) return ctx.objects.get(CORE('serviceaccounts'), namespace, name);
      throw err;
    }
  };
  return mutating(async (a) => {
    const pod = createdPod(a);
    if (!pod || pod.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
    const spec = podSpec(pod);
    if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT;
    const name = spec.serviceAccountName;
    const account = await lookup(a.namespace, name, a.dryRun);
    if (!account) throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: serviceaccount "${name}" not found`);
    const automount = spec.automountServiceAccountToken ?? (account as { automountServiceAccountToken?: boolean }).automountServiceAccountToken ?? true;
    if (automount) mountToken(spec);
    const pullSecrets = (account as { imagePullSecrets?: Array<{ name?: string }> }).imagePullSecrets;
    if ((!spec.imagePullSecrets || spec.imagePullSecrets.length === 0) && pullSecrets?.length) {
      spec.imagePullSecrets = pullSecrets.map((s) => ({ name: s.name }));
    }
  });
}

function mountToken(spec: ReturnType<typeof podSpec>): void {
  const containers = allContainers(spec);
  const needs = containers.filter((c) => !(c.volumeMounts ?? []).some((m) => m.mountPath === TOKEN_MOUNT_PATH));
  if (needs.length === 0) return;
  const volumes = Array.isArray(spec.volumes) ? spec.volumes : (spec.volumes = []);
  let volume = volumes.find((v) => typeof v.name === 'string' && v.name.startsWith('kube-api-access-') && v.projected !== undefined);
  if (!volume) {
    let name: string;
    do name = `kube-api-access-${randomSuffix()}`;
    while (volumes.some((v) => v.name === name));
    volume = tokenVolume(name);
    volumes.push(volume);
  }
  for (const c of needs) {
    c.volumeMounts = [...(c.volumeMounts ?? []), { name: volume.name as string, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
  }
}
