/**
 * Certificate rotation (client-go's util/certificate manager, as kubelet runs it for its client
 * certificate with --rotate-certificates and for its serving certificate with serverTLSBootstrap):
 * the current pair comes from the store; a new one is asked for, with a new ECDSA key, at a
 * deadline between 70 % and 90 % of the certificate's lifetime (jittered, so that nodes do not all
 * ask at once), at once when there is none or it no longer matches the template. A failed request
 * is retried after 2, 4, 8, 16 and 32 s (10 % jitter), then every 32 s until it succeeds. Each issued
 * pair is stored (the -current.pem link moves) and handed to `onRotated`.
 */
import type { Logger } from 'pino';
import { makeCertificateRequest, newPrivateKeyPem, type CertificateTemplate } from './certificate-request';
import type { CertificateStore, StoredPair } from './certificate-store';
import { requestCertificate, waitForCertificate, type CsrClient } from './request-certificate';

/** time as the manager sees it; tests give a fake one */
export interface ManagerClock {
  now(): number;
  /** resolves after `ms`, or early when the signal aborts */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout's longest delay (about 24.8 days); a longer one would fire at once */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** a wait that does not keep the process alive by itself (an agent failing at start must still exit) */
function unrefSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
  });
}

export const REAL_CLOCK: ManagerClock = {
  now: () => Date.now(),
  // a year's certificate is rotated months ahead: wait in pieces a timer can hold
  async sleep(ms, signal) {
    const end = Date.now() + ms;
    for (let left = ms; left > 0 && !signal.aborted; left = end - Date.now()) await unrefSleep(Math.min(left, MAX_TIMER_MS), signal);
  },
};

export interface CertificateManagerOptions {
  /** names this manager in logs: "client" or "serving" */
  name: string;
  store: CertificateStore;
  /** the pair to start with when the store has none (the one --kubeconfig names) */
  initial?: StoredPair;
  /** what the certificate must say; undefined while it cannot be known yet (a serving certificate before the node's addresses) */
  template: () => CertificateTemplate | undefined;
  signerName: string;
  usages: readonly string[];
  /** the API client requests are made with (it may depend on the current pair) */
  client: (current: StoredPair | undefined) => CsrClient;
  onRotated?: (pair: StoredPair) => void;
  logger: Logger;
  clock?: ManagerClock;
  /** a number in [0, 1) (Math.random) */
  random?: () => number;
  /** how long one request may wait to be issued (client-go: 15 minutes) and how often it looks */
  waitTimeoutMs?: number;
  pollMs?: number;
}

const BACKOFF_START_MS = 2000;
const BACKOFF_STEPS = 5;
const RETRY_FOREVER_MS = 32_000;

/** client-go's nextRotationDeadline: notBefore + lifetime x (0.7 + 0.2 x random) */
export function rotationDeadline(notBefore: number, notAfter: number, random: number): number {
  const total = notAfter - notBefore;
  return notBefore + total * (0.7 + 0.2 * random);
}

function sameSet(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  const x = new Set(a ?? []);
  const y = new Set(b ?? []);
  return x.size === y.size && [...x].every((v) => y.has(v));
}

/** client-go's certSatisfiesTemplate: subject, DNS names and IPs as asked */
export function satisfiesTemplate(pair: StoredPair, t: CertificateTemplate): boolean {
  const subject = pair.leaf.subject.split('\n');
  const cn = subject.find((l) => l.startsWith('CN='))?.slice(3) ?? '';
  const orgs = subject.filter((l) => l.startsWith('O=')).map((l) => l.slice(2));
  if (cn !== t.commonName || !sameSet(orgs, t.organizations)) return false;
  const alt = (pair.leaf.subjectAltName ?? '').split(', ').filter(Boolean);
  const dns = alt.filter((a) => a.startsWith('DNS:')).map((a) => a.slice(4));
  const ips = alt.filter((a) => a.startsWith('IP Address:')).map((a) => a.slice(11).toLowerCase());
  return sameSet(dns, t.dnsNames) && sameSet(ips, (t.ipAddresses ?? []).map((ip) => ip.toLowerCase()));
}

export class CertificateManager {
  readonly #o: CertificateManagerOptions;
  readonly #clock: ManagerClock;
  readonly #random: () => number;
  #pair: StoredPair | undefined;
  readonly #listeners: ((pair: StoredPair) => void)[] = [];
  readonly #abort = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(opts: CertificateManagerOptions) {
    this.#o = opts;
    this.#clock = opts.clock ?? REAL_CLOCK;
    this.#random = opts.random ?? Math.random;
    this.#pair = opts.store.current() ?? opts.initial;
    if (opts.onRotated) this.#listeners.push(opts.onRotated);
  }

  /** the pair in use, unless it has expired (client-go's Current) */
  current(): StoredPair | undefined {
    const pair = this.#pair;
    if (!pair) return undefined;
    if (this.#clock.now() >= Date.parse(pair.leaf.validTo)) {
      this.#o.logger.warn({ certificate: this.#o.name }, 'Current certificate is expired');
      return undefined;
    }
    return pair;
  }

  /** when the next rotation is due: now when there is no pair or it does not match the template */
  nextRotationDeadline(): number {
    const pair = this.#pair;
    const template = this.#o.template();
    if (!pair || (template && !satisfiesTemplate(pair, template))) return this.#clock.now();
    return rotationDeadline(Date.parse(pair.leaf.validFrom), Date.parse(pair.leaf.validTo), this.#random());
  }

  /** ask for a new pair once; false when it could not be had (the error is logged) */
  async rotate(): Promise<boolean> {
    const { logger, name } = this.#o;
    const template = this.#o.template();
    if (!template) {
      logger.info({ certificate: name }, 'No certificate template yet (the node addresses are not known): not asking for a certificate');
      return false;
    }
    try {
      const keyPem = newPrivateKeyPem();
      const csrPem = makeCertificateRequest(keyPem, template);
      const client = this.#o.client(this.current());
      const csr = await requestCertificate(client, { csrPem, keyPem, signerName: this.#o.signerName, usages: this.#o.usages });
      logger.info({ certificate: name, csr: csr.name }, 'Certificate signing request created; waiting for it to be issued');
      const certPem = await waitForCertificate(client, csr, {
        signal: this.#abort.signal,
        timeoutMs: this.#o.waitTimeoutMs ?? 15 * 60_000,
        pollMs: this.#o.pollMs,
        now: () => this.#clock.now(),
        sleep: (ms, signal) => this.#clock.sleep(ms, signal ?? this.#abort.signal),
      });
      const pair = this.#o.store.update(certPem, keyPem);
      this.#pair = pair;
      logger.info({ certificate: name, notAfter: pair.leaf.validTo }, 'Certificate rotated');
      for (const listener of this.#listeners) listener(pair);
      return true;
    } catch (err) {
      if (!this.#abort.signal.aborted) logger.error({ certificate: name, err: (err as Error).message }, 'Failed while requesting a signed certificate from the control plane');
      return false;
    }
  }

  /** be told of each new pair */
  onRotated(listener: (pair: StoredPair) => void): void {
    this.#listeners.push(listener);
  }

  /** rotate at each deadline until stopped */
  start(): void {
    this.#loop ??= this.#run();
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const wait = this.nextRotationDeadline() - this.#clock.now();
      if (wait > 0) {
        this.#o.logger.info({ certificate: this.#o.name, waitSeconds: Math.round(wait / 1000) }, 'Waiting for next certificate rotation');
        await this.#clock.sleep(wait, signal);
      }
      let delay = BACKOFF_START_MS;
      for (let attempt = 1; !signal.aborted && !(await this.rotate()); attempt++) {
        const pause = attempt <= BACKOFF_STEPS ? delay * (1 + 0.1 * this.#random()) : RETRY_FOREVER_MS;
        delay *= 2;
        await this.#clock.sleep(pause, signal);
      }
    }
  }
}
