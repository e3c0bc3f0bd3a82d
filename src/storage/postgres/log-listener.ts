import pg from 'pg';
import type { Logger } from 'pino';

export interface LogListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  /** a NOTIFY arrived (its payload: the newest revision of the commit that sent it) */
  onNotify: (payload: string) => void;
  /** (re)connected and listening: notifications sent while it was away are lost, so catch up */
  onListening: () => void;
  logger?: Logger;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 2000;

/**
 * A connection of its own that LISTENs on the log's channel, so a server hears another server's
 * commit as it happens. When the connection drops it reconnects (backing off up to 2 s) and says so
 * through onListening; the store's poll covers the time in between.
 */
export class LogListener {
  readonly #o: LogListenerOptions;
  #client: pg.Client | undefined;
  #retryMs = RETRY_MIN_MS;
  #timer: NodeJS.Timeout | undefined;
  #lost = false;
  #closed = false;

  constructor(options: LogListenerOptions) {
    this.#o = options;
  }

  start(): void {
    void this.#connect();
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = new pg.Client(this.#o.config);
    this.#client = client;
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      client.removeAllListeners('notification');
      client.end().catch(() => undefined);
      if (this.#closed) return;
      if (!this.#lost) this.#o.logger?.warn({ err: err?.message }, 'lost the PostgreSQL connection that listens for other servers\' writes; reconnecting');
      this.#lost = true;
      this.#timer = setTimeout(() => void this.#connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
    };
    client.on('error', (err) => drop(err));
    client.on('end', () => drop());
    client.on('notification', (n) => this.#o.onNotify(n.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN ${client.escapeIdentifier(this.#o.channel)}`);
    } catch (err) {
      drop(err as Error);
      return;
    }
    if (this.#closed) {
      await client.end().catch(() => undefined);
      return;
    }
    if (this.#lost) this.#o.logger?.info('listening for other servers\' writes again');
    this.#lost = false;
    this.#retryMs = RETRY_MIN_MS;
    this.#o.onListening();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    await this.#client?.end().catch(() => undefined);
  }
}
