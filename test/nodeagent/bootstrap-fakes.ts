/**
 * Fakes for the certificate tests: a CertificateSigningRequest API that approves, denies or keeps
 * requests pending and signs approved ones with a throwaway CA (the controller manager's signing
 * code), and a clock whose sleeps end when the test moves time on.
 */
import { firstPemBlock } from '../../src/api/kinds/certificates/csr-request';
import { ApiError } from '../../src/client/errors';
import type { KubeObject, ResourceRef } from '../../src/client/types';
import { issueCertificate, type SigningPair } from '../../src/controllers/certificates/issue-certificate';
import type { ManagerClock } from '../../src/nodeagent/certificate/certificate-manager';
import type { CsrClient } from '../../src/nodeagent/certificate/request-certificate';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export type Decision = 'approve' | 'deny' | 'pending' | 'fail';

export class FakeCsrApi implements CsrClient {
  readonly csrs = new Map<string, Obj>();
  readonly created: Obj[] = [];
  decide: (csr: Obj) => Decision = () => 'approve';
  /** errors thrown by the next creates */
  createErrors: Error[] = [];
  ttlMs = 3600_000;
  now: () => number = Date.now;
  #n = 0;

  constructor(readonly ca: SigningPair) {}

  async create<T extends KubeObject = KubeObject>(_ref: ResourceRef, _ns: string | undefined, obj: KubeObject): Promise<T> {
    const err = this.createErrors.shift();
    if (err) throw err;
    const o = structuredClone(obj) as Obj;
    const name = o.metadata.name ?? `${o.metadata.generateName}${++this.#n}`;
    if (this.csrs.has(name)) throw new ApiError(409, { kind: 'Status', code: 409, reason: 'AlreadyExists', message: `certificatesigningrequests "${name}" already exists` });
    o.metadata = { ...o.metadata, name, uid: `uid-${name}-${++this.#n}` };
    delete o.metadata.generateName;
    this.csrs.set(name, o);
    this.created.push(structuredClone(o));
    return structuredClone(o) as T;
  }

  async get<T extends KubeObject = KubeObject>(_ref: ResourceRef, _ns: string | undefined, name: string): Promise<T> {
    const o = this.csrs.get(name);
    if (!o) throw new ApiError(404, { kind: 'Status', code: 404, reason: 'NotFound', message: `certificatesigningrequests "${name}" not found` });
    if (!o.status?.conditions?.length) {
      const decision = this.decide(o);
      if (decision === 'approve') {
        const der = firstPemBlock(Buffer.from(o.spec.request, 'base64'))!.der;
        const pem = issueCertificate({ csrDer: der, usages: o.spec.usages, ttlMs: this.ttlMs, signer: this.ca, now: this.now() });
        o.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved' }], certificate: Buffer.from(pem).toString('base64') };
      } else if (decision === 'deny') {
        o.status = { conditions: [{ type: 'Denied', status: 'True', reason: 'NotMine', message: 'go away' }] };
      } else if (decision === 'fail') {
        o.status = { conditions: [{ type: 'Approved', status: 'True' }, { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: 'bad usages' }] };
      }
    }
    return structuredClone(o) as T;
  }
}

export class FakeClock implements ManagerClock {
  readonly sleeps: { ms: number; until: number; done: () => void }[] = [];
  constructor(public t: number) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const entry = { ms, until: this.t + ms, done: resolve };
      this.sleeps.push(entry);
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** the sleeps not yet over */
  pending(): { ms: number; until: number }[] {
    return this.sleeps.filter((s) => s.until > this.t);
  }

  advance(ms: number): void {
    this.t += ms;
    for (const s of this.sleeps) if (s.until <= this.t) s.done();
  }
}

/** resolves once `cond` holds, polling the event loop (fails after 5 s) */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
