/**
 * A throwaway OpenID issuer for tests: HTTPS (certificate from its own test CA) serving the
 * discovery document and a key set, and signing ID tokens with jose. Keys can be added (rotation)
 * and the server started late (on a port picked beforehand).
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import type { JWK, JWTPayload, KeyLike } from 'jose';
import { makeCa, makeCert } from '../helpers/test-pki';
import type { TestCert } from '../helpers/test-pki';

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: KeyLike;
  jwk: JWK;
}

export class TestIssuer {
  readonly dir: string;
  readonly ca: TestCert;
  readonly port: number;
  readonly url: string;
  readonly keys: SigningKey[] = [];
  /** how many times the key set was fetched */
  jwksFetches = 0;
  #server?: https.Server;
  readonly #serving: TestCert;

  private constructor(dir: string, port: number) {
    this.dir = dir;
    this.port = port;
    this.url = `https://127.0.0.1:${port}`;
    this.ca = makeCa(dir, 'oidc-ca');
    this.#serving = makeCert(dir, 'oidc-server', this.ca, { commonName: 'oidc', ips: ['127.0.0.1'], usage: 'server' });
  }

  /** a prepared issuer with one RS256 key; not listening until start() */
  static async create(): Promise<TestIssuer> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'oidc-issuer-'));
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const issuer = new TestIssuer(dir, port);
    await issuer.addKey('key-1');
    return issuer;
  }

  async addKey(kid: string, alg = 'RS256'): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(alg);
    this.keys.push({ kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
  }

  async start(): Promise<void> {
    this.#server = https.createServer({ key: this.#serving.key, cert: this.#serving.cert }, (req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/.well-known/openid-configuration') {
        res.end(JSON.stringify({ issuer: this.url, jwks_uri: `${this.url}/keys`, id_token_signing_alg_values_supported: ['RS256'] }));
      } else if (req.url === '/keys') {
        this.jwksFetches++;
        res.end(JSON.stringify({ keys: this.keys.map((k) => k.jwk) }));
      } else {
        res.statusCode = 404;
        res.end('{}');
      }
    });
    await new Promise<void>((r) => this.#server!.listen(this.port, '127.0.0.1', r));
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise<void>((r) => (this.#server ? this.#server.close(() => r()) : r()));
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** an ID token of this issuer for `aud`, valid for an hour unless the claims say otherwise */
  async token(claims: JWTPayload, opts: { kid?: string; key?: KeyLike; alg?: string } = {}): Promise<string> {
    const k = this.keys.find((x) => x.kid === (opts.kid ?? this.keys[0].kid)) ?? this.keys[0];
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ iss: this.url, iat: now, exp: now + 3600, ...claims })
      .setProtectedHeader({ alg: opts.alg ?? k.alg, kid: opts.kid ?? k.kid })
      .sign(opts.key ?? k.privateKey);
  }
}
