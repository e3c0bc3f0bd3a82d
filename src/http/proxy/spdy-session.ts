/**
 * The client end of a SPDY/3.1 session over an upgraded connection, as kube's SPDY executor uses
 * one against a kubelet's (or a runtime's) streaming server: streams opened by us with a few
 * headers, data both ways, FIN as half-close, RST_STREAM, PING answered, GOAWAY and the socket's
 * end closing everything.
 *
 * spdystream (the server side kube uses) drops data that arrives on a stream before it has sent
 * its SYN_REPLY, so a stream queues what is written to it until the reply comes, as client-go
 * waits for the reply before writing. spdystream keeps no flow-control windows, so none are kept
 * here either (WINDOW_UPDATE and SETTINGS are read and ignored).
 */
import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import {
  FLAG_FIN,
  FrameType,
  HeaderBlockWriter,
  MAX_FRAME_PAYLOAD,
  RstStatus,
  SpdyFrameReader,
  controlStreamId,
  dataFrame,
  goAwayFrame,
  pingFrame,
  rstStreamFrame,
  synStreamFrame,
} from './spdy-frames';

export interface SpdyStreamEvents {
  /** the server's SYN_REPLY: writes flow from now on */
  reply: [];
  data: [chunk: Buffer];
  /** the server finished its side (FIN), reset the stream, or the session ended */
  end: [];
  reset: [status: number];
}

export class SpdyStream extends EventEmitter<SpdyStreamEvents> {
  readonly id: number;
  readonly #session: SpdySession;
  #replied = false;
  #pending: Buffer[] = [];
  #endPending = false;
  #localDone = false;
  #remoteDone = false;

  constructor(session: SpdySession, id: number) {
    super();
    this.#session = session;
    this.id = id;
  }

  get replied(): boolean {
    return this.#replied;
  }

  get remoteDone(): boolean {
    return this.#remoteDone;
  }

  /** sends data (held until the reply); returns false when the session's socket is full */
  write(data: Buffer): boolean {
    if (this.#localDone || data.length === 0) return true;
    if (!this.#replied) {
      this.#pending.push(data);
      return true;
    }
    let ok = true;
    for (let at = 0; at < data.length; at += MAX_FRAME_PAYLOAD) ok = this.#session.write(dataFrame(this.id, 0, data.subarray(at, at + MAX_FRAME_PAYLOAD)));
    return ok;
  }

  /** half-closes our side (an empty DATA frame with FIN), after what was written */
  end(): void {
    if (this.#localDone) return;
    if (!this.#replied) {
      this.#endPending = true;
      return;
    }
    this.#localDone = true;
    this.#session.write(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
  }

  /** @internal the session's SYN_REPLY for this stream */
  onReply(fin: boolean): void {
    if (this.#replied) return;
    this.#replied = true;
    this.emit('reply');
    const pending = this.#pending;
    this.#pending = [];
    for (const p of pending) this.write(p);
    if (this.#endPending) this.end();
    if (fin) this.onRemoteEnd();
  }

  /** @internal */
  onData(data: Buffer, fin: boolean): void {
    if (this.#remoteDone) return;
    if (data.length > 0) this.emit('data', data);
    if (fin) this.onRemoteEnd();
  }

  /** @internal */
  onRemoteEnd(): void {
    if (this.#remoteDone) return;
    this.#remoteDone = true;
    this.emit('end');
  }

  /** @internal */
  onReset(status: number): void {
    this.#localDone = true;
    this.#pending = [];
    this.emit('reset', status);
    this.onRemoteEnd();
  }
}

export interface SpdySessionEvents {
  /** the connection ended (socket closed, GOAWAY, or close()) */
  close: [];
}

export class SpdySession extends EventEmitter<SpdySessionEvents> {
  readonly socket: Duplex;
  #reader = new SpdyFrameReader();
  #headers = new HeaderBlockWriter();
  #streams = new Map<number, SpdyStream>();
  #nextId = 1;
  #closed = false;

  /** `head`: bytes that came with the 101 answer, already part of the session */
  constructor(socket: Duplex, head: Buffer = Buffer.alloc(0)) {
    super();
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.#read(chunk));
    socket.on('close', () => this.#shutdown());
    socket.on('end', () => this.#shutdown());
    socket.on('error', () => this.#shutdown());
    if (head.length > 0) queueMicrotask(() => this.#read(head));
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** opens a stream (SYN_STREAM) with these headers, names lower-cased as SPDY wants them */
  openStream(headers: Record<string, string>): SpdyStream {
    const id = this.#nextId;
    this.#nextId += 2;
    const stream = new SpdyStream(this, id);
    this.#streams.set(id, stream);
    this.write(synStreamFrame(id, 0, this.#headers.encode(headers)));
    return stream;
  }

  /** @internal */
  write(frame: Buffer): boolean {
    if (this.#closed || this.socket.destroyed) return false;
    return this.socket.write(frame);
  }

  /** tells the server we are done (GOAWAY) and ends the connection */
  close(): void {
    if (this.#closed) return;
    this.write(goAwayFrame(0));
    this.socket.end();
    this.#shutdown();
  }

  destroy(): void {
    this.socket.destroy();
    this.#shutdown();
  }

  #shutdown(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of this.#streams.values()) s.onRemoteEnd();
    this.#streams.clear();
    this.emit('close');
  }

  #read(chunk: Buffer): void {
    for (const f of this.#reader.push(chunk)) {
      if (this.#closed) return;
      if (!f.control) {
        this.#streams.get(f.streamId)?.onData(f.data, (f.flags & FLAG_FIN) !== 0);
        continue;
      }
      const id = controlStreamId(f);
      const stream = this.#streams.get(id);
      switch (f.type) {
        case FrameType.SynReply:
          stream?.onReply((f.flags & FLAG_FIN) !== 0);
          break;
        case FrameType.RstStream:
          if (stream) {
            this.#streams.delete(id);
            stream.onReset(f.payload.length >= 8 ? f.payload.readUInt32BE(4) : 0);
          }
          break;
        case FrameType.Headers:
          if (f.flags & FLAG_FIN) stream?.onRemoteEnd();
          break;
        case FrameType.Ping:
          // a server's pings have even ids: echo them; odd ones would answer ours (we send none)
          if (f.payload.length >= 4 && f.payload.readUInt32BE(0) % 2 === 0) this.write(pingFrame(f.payload.readUInt32BE(0)));
          break;
        case FrameType.SynStream:
          // kube's streaming servers never open streams toward the client
          if (id !== 0) this.write(rstStreamFrame(id, RstStatus.RefusedStream));
          break;
        case FrameType.GoAway:
          this.socket.end();
          this.#shutdown();
          return;
        default:
          // SETTINGS, WINDOW_UPDATE: no windows are kept (see the header)
          break;
      }
    }
  }
}
