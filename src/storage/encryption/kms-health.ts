/**
 * What the API server does with the KMS plugins of an encryption configuration besides encrypting:
 * the Version call at start-up (a plugin that answers with another API version stops start-up; one
 * that does not answer yet is only logged, as kube dials lazily and its health check reports it),
 * and kube's health checks: `kms-provider-0` when there is one KMS provider, `kms-providers`
 * covering all of them when there are several. A check encrypts "ping" and decrypts the answer.
 */
import type { EncryptionRule } from './config';
import type { KmsProvider } from './kms-provider';
import { isKmsProvider } from './kms-provider';

export interface KmsHealthCheck {
  name: string;
  check(): Promise<void>;
}

/** every KMS provider of the configuration, once each, in the order they are written */
export function kmsProviders(rules: readonly EncryptionRule[]): KmsProvider[] {
  const found = new Set<KmsProvider>();
  for (const rule of rules) for (const p of rule.providers) if (isKmsProvider(p)) found.add(p);
  return [...found];
}

async function ping(p: KmsProvider): Promise<void> {
  let cipher: Buffer;
  try {
    cipher = await p.service.encrypt(Buffer.from('ping'));
  } catch (err) {
    throw new Error(`failed to perform encrypt section of the healthz check for KMS Provider ${p.kmsName}, error: ${(err as Error).message}`);
  }
  let plain: Buffer;
  try {
    plain = await p.service.decrypt(cipher);
  } catch (err) {
    throw new Error(`failed to perform decrypt section of the healthz check for KMS Provider ${p.kmsName}, error: ${(err as Error).message}`);
  }
  if (plain.toString() !== 'ping') throw new Error(`response from decrypt operation did not match test string for KMS Provider ${p.kmsName}`);
}

export function kmsHealthChecks(rules: readonly EncryptionRule[]): KmsHealthCheck[] {
  const providers = kmsProviders(rules);
  if (providers.length === 0) return [];
  if (providers.length === 1) return [{ name: 'kms-provider-0', check: () => ping(providers[0]) }];
  return [
    {
      name: 'kms-providers',
      check: async () => {
        for (const p of providers) await ping(p);
      },
    },
  ];
}

/**
 * ask every plugin its version; a wrong version throws (start-up stops, naming the provider), an
 * unreachable plugin is reported through `warn` and asked again before its first use
 */
export async function checkKmsPlugins(rules: readonly EncryptionRule[], file: string, warn: (provider: string, message: string) => void): Promise<void> {
  await Promise.all(
    kmsProviders(rules).map(async (p) => {
      try {
        await p.service.version();
      } catch (err) {
        const message = (err as Error).message;
        if (/^KMS provider api version /.test(message)) throw new Error(`--encryption-provider-config ${file}: KMS provider ${JSON.stringify(p.kmsName)}: ${message}`);
        warn(p.kmsName, message);
      }
    }),
  );
}
