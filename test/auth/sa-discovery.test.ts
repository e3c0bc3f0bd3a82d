import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import t from 'tap';
import { serviceAccountAuth } from '../../src/auth/serviceaccount/index';
import { jwks, openIdConfiguration } from '../../src/auth/serviceaccount/discovery';
import { signingKeyOf } from '../../src/auth/serviceaccount/keys';

const rsa = signingKeyOf(crypto.generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey);
const ec = signingKeyOf(crypto.generateKeyPairSync('ec', { namedCurve: 'P-521' }).privateKey);

t.test('the openid configuration and the key set', async (t) => {
  t.same(openIdConfiguration({ issuer: 'https://i', jwksUri: 'https://i/openid/v1/jwks', keys: [rsa, ec, rsa] }), {
    issuer: 'https://i',
    jwks_uri: 'https://i/openid/v1/jwks',
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES512', 'RS256'],
  });
  const set = jwks([rsa, ec, rsa]) as { keys: Array<Record<string, string>> };
  t.equal(set.keys.length, 2, 'one entry per key');
  t.match(set.keys[0], { kty: 'RSA', use: 'sig', alg: 'RS256', kid: rsa.kid, n: String, e: 'AQAB' });
  t.match(set.keys[1], { kty: 'EC', crv: 'P-521', use: 'sig', alg: 'ES512', kid: ec.kid, x: String, y: String });
  t.notOk('d' in set.keys[0], 'no private parts');
});

t.test('discovery is served for an https issuer only', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sa-disc-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const keyFile = path.join(dir, 'k.pem');
  fs.writeFileSync(keyFile, rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }));
  const build = (issuer: string, jwksUri?: string) =>
    serviceAccountAuth({
      settings: { issuers: [issuer], keyFiles: [], signingKeyFile: keyFile, jwksUri, lookup: true, maxTokenExpirationSeconds: 0, extendTokenExpiration: true },
      apiAudiences: [issuer],
      bootstrapTokens: true,
      generatedKeys: () => t.fail('nothing is generated when a key is given') as never,
      externalUrl: 'https://10.0.0.1:6443',
      lookup: async () => undefined,
      logger: pino({ level: 'silent' }),
    });
  const served = build('https://issuer.example');
  t.same([...(served.documents?.keys() ?? [])], ['/.well-known/openid-configuration', '/openid/v1/jwks']);
  t.match(served.documents?.get('/.well-known/openid-configuration')?.body(), { jwks_uri: 'https://10.0.0.1:6443/openid/v1/jwks' }, 'the server\'s address by default');
  t.match(build('https://issuer.example', 'https://cdn.example/jwks').documents?.get('/.well-known/openid-configuration')?.body(), { jwks_uri: 'https://cdn.example/jwks' });
  t.equal(build('api').documents, undefined, 'a plain issuer name: no discovery');
  t.equal(served.tokens.length, 2, 'service account and bootstrap token authenticators');
  t.equal(served.keys[0].kid, rsa.kid, 'the signing key verifies');
  const tlsKey = path.join(dir, 'tls.key');
  fs.writeFileSync(tlsKey, ec.privateKey.export({ type: 'sec1', format: 'pem' }));
  const withTls = serviceAccountAuth({
    settings: { issuers: ['https://i'], keyFiles: [], signingKeyFile: keyFile, lookup: true, maxTokenExpirationSeconds: 0, extendTokenExpiration: true },
    apiAudiences: ['https://i'],
    bootstrapTokens: false,
    generatedKeys: () => t.fail('nothing is generated when a key is given') as never,
    tlsKeyFile: tlsKey,
    externalUrl: 'https://10.0.0.1:6443',
    lookup: async () => undefined,
    logger: pino({ level: 'silent' }),
  });
  t.same(withTls.keys.map((k) => k.kid).sort(), [rsa.kid, ec.kid].sort(), 'without key files the TLS key verifies too, as kube\'s default');
});
