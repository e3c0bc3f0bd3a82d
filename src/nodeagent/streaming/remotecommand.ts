/**
 * What exec and attach share across SPDY and WebSocket (kube's remotecommand): the protocol names,
 * the streams a command gets, the terminal sizes a client sends, and the Status written when the
 * command ends. Protocol versions, as kubelet's streaming server speaks them:
 *
 *   v2  stdin, stdout, stderr and error streams; the error stream carries a failure's text
 *   v3  v2 plus a resize stream (terminal sizes as JSON objects {"Width","Height"})
 *   v4  v3, with the error stream carrying a metav1.Status (the exit code in its details)
 *   v5  (WebSocket only) v4 plus a close signal: a client ends its stdin with [255, 0]
 */
import { EventEmitter } from 'node:events';
import type { Readable, Writable } from 'node:stream';

export const STREAM_PROTOCOL_V2 = 'v2.channel.k8s.io';
export const STREAM_PROTOCOL_V3 = 'v3.channel.k8s.io';
export const STREAM_PROTOCOL_V4 = 'v4.channel.k8s.io';
export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';
/** what SPDY clients may ask for, our preference last (the client's order decides) */
export const SPDY_REMOTECOMMAND_PROTOCOLS = [STREAM_PROTOCOL_V4, STREAM_PROTOCOL_V3, STREAM_PROTOCOL_V2];
export const PORT_FORWARD_PROTOCOL = 'portforward.k8s.io';

/** X-Stream-Protocol-Version (asked and chosen); X-Accepted-Stream-Protocol-Versions on refusal */
export const HEADER_PROTOCOL_VERSION = 'X-Stream-Protocol-Version';
export const HEADER_ACCEPTED_PROTOCOL_VERSIONS = 'X-Accepted-Stream-Protocol-Versions';

export interface TerminalSize {
  width: number;
  height: number;
}

/** the streams a command runs with: the ones the request asked for, and terminal sizes for a tty */
export interface CommandStreams {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  tty: boolean;
  /** emits 'resize' (TerminalSize) as the client sends sizes; `last` is the newest one */
  resize: ResizeEvents;
  /** aborted when the client's connection is gone before the command ended */
  signal: AbortSignal;
}

export class ResizeEvents extends EventEmitter {
  last: TerminalSize | undefined;

  push(size: TerminalSize): void {
    this.last = size;
    this.emit('resize', size);
  }

  /** the first size, or undefined when none came within `ms` */
  first(ms: number): Promise<TerminalSize | undefined> {
    if (this.last !== undefined) return Promise.resolve(this.last);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.off('resize', onResize);
        resolve(undefined);
      }, ms);
      const onResize = (size: TerminalSize) => {
        clearTimeout(timer);
        resolve(size);
      };
      this.once('resize', onResize);
    });
  }
}

/**
 * Reads the resize stream: JSON objects one after another (Go's json.Decoder on the client writes
 * them back to back, each followed by a newline), `{"Width":80,"Height":24}`.
 */
export class ResizeDecoder {
  #text = '';

  constructor(private readonly events: ResizeEvents) {}

  write(chunk: Buffer | string): void {
    this.#text += chunk.toString();
    for (;;) {
      const end = objectEnd(this.#text);
      if (end < 0) return;
      const json = this.#text.slice(0, end);
      this.#text = this.#text.slice(end);
      try {
        const value = JSON.parse(json) as { Width?: number; Height?: number };
        this.events.push({ width: Number(value.Width ?? 0), height: Number(value.Height ?? 0) });
      } catch {
        // not a size: skipped
      }
    }
  }
}

/** the index just past the first whole JSON object in `text`, -1 when none is whole yet */
function objectEnd(text: string): number {
  let depth = 0;
  let inString = false;
  let started = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') {
      depth++;
      started = true;
    } else if (c === '}') {
      depth--;
      if (started && depth === 0) return i + 1;
    }
  }
  return -1;
}

/** how a command ended: its exit code, or an error that kept it from running to its end */
export type CommandResult = { exitCode: number } | { error: string };

/**
 * The error stream's content for a result (kubelet's remotecommand): v4 and v5 write a
 * metav1.Status (Success; NonZeroExitCode with the code as an ExitCode cause; InternalError);
 * older versions write nothing on success and a failure's message as text.
 */
export function statusBytes(protocol: string, result: CommandResult, command: string[]): Buffer {
  const structured = protocol === STREAM_PROTOCOL_V4 || protocol === STREAM_PROTOCOL_V5;
  if ('exitCode' in result && result.exitCode === 0) {
    return structured ? Buffer.from(JSON.stringify({ metadata: {}, status: 'Success' })) : Buffer.alloc(0);
  }
  if ('exitCode' in result) {
    const message = `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${result.exitCode}`;
    if (!structured) return Buffer.from(message);
    return Buffer.from(
      JSON.stringify({
        metadata: {},
        status: 'Failure',
        message,
        reason: 'NonZeroExitCode',
        details: { causes: [{ reason: 'ExitCode', message: String(result.exitCode) }] },
      }),
    );
  }
  const message = `Internal error occurred: error executing command in container: ${result.error}`;
  if (!structured) return Buffer.from(message);
  return Buffer.from(
    JSON.stringify({
      metadata: {},
      status: 'Failure',
      message,
      reason: 'InternalError',
      details: { causes: [{ message: `error executing command in container: ${result.error}` }] },
      code: 500,
    }),
  );
}

/** the client's protocols from its (possibly repeated, possibly comma-joined) header */
export function clientProtocols(header: string | string[] | undefined): string[] {
  const values = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** the first of the client's protocols the server speaks (kube's httpstream.Handshake), '' when none */
export function negotiate(client: string[], server: string[]): string {
  return client.find((p) => server.includes(p)) ?? '';
}
