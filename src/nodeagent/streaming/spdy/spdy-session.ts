/**
 * A SPDY/3.1 connection over an upgraded socket, as moby/spdystream runs one for kube's
 * remotecommand and portforward: either end opens streams (the client odd ids, the server even),
 * each stream is a Duplex whose writes become DATA frames and whose end() sends FIN; a peer's FIN
 * ends its readable side, RST_STREAM destroys it. PINGs from the peer are echoed, GOAWAY stops new
 * streams. Flow control: received data is acknowledged at once with WINDOW_UPDATE (stream and
 * session); the peer's windows are not enforced on sending, as spdystream does not enforce them
 * either, and the socket's own back-pressure paces writers.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import { FLAG_FIN, FLAG_UNIDIRECTIONAL, FrameEncoder, FrameParser, RstStatus, type SpdyFrame, type SpdyHeaders } from './frames';

export interface SpdySessionOptions {
  /** the upgraded connection (after the 101 answer) */
  socket: Duplex;
  /** a server's streams get even ids and it echoes odd PINGs; a client's the reverse */
  role: 'server' | 'client';
  /** bytes the socket had already read past the upgrade answer */
  head?: Buffer;
}

/** header names and their one or more values, as given to openStream and reply */
export type HeaderInit = Record<string, string | string[]>;

function toSpdyHeaders(init: HeaderInit): SpdyHeaders {
  const out: SpdyHeaders = {};
  for (const [name, value] of Object.entries(init)) out[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  return out;
}

export class SpdyStream extends Duplex {
  readonly id: number;
  /** the headers the stream was opened with (ours for a stream we opened) */
  readonly headers: SpdyHeaders;
  /** the peer's SYN_REPLY headers once they came (streams we opened) */
  replyHeaders: SpdyHeaders | undefined;
  readonly #session: SpdySession;
  #replied: boolean;
  #remoteEnded = false;
  #localEnded = false;
  #reset = false;

  /** @internal made by SpdySession */
  constructor(session: SpdySession, id: number, headers: SpdyHeaders, ours: boolean) {
    super({ allowHalfOpen: true });
    this.#session = session;
    this.id = id;
    this.headers = headers;
    this.#replied = ours;
  }

  /** the first value of a header the stream was opened with, '' when absent */
  header(name: string): string {
    return this.headers[name.toLowerCase()]?.[0] ?? '';
  }

  /** answers a stream the peer opened (SYN_REPLY); data written before it waits for it */
  reply(headers: HeaderInit = {}): void {
    if (this.#replied) return;
    this.#replied = true;
    this.#session._send({ type: 'SYN_REPLY', streamId: this.id, flags: 0, headers: toSpdyHeaders(headers) });
  }

  /** ends the stream both ways at once (RST_STREAM with `status`, CANCEL by default) */
  reset(status: number = RstStatus.CANCEL): void {
    if (this.#reset) return;
    this.#reset = true;
    if (!(this.#localEnded && this.#remoteEnded)) this.#session._send({ type: 'RST_STREAM', streamId: this.id, status });
    this.#session._forget(this.id);
    this.destroy();
  }

  override _read(): void {
    // data is pushed as frames arrive; SPDY has no way to pause one stream short of its window
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.#reset) return callback(new Error(`stream ${this.id} was reset`));
    this.reply();
    // a frame's length is 24 bits: cut larger writes
    for (let at = 0; at < chunk.length; at += 0x10000) {
      this.#session._send({ type: 'DATA', streamId: this.id, flags: 0, data: chunk.subarray(at, at + 0x10000) });
    }
    this.#session._whenWritable(callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.#reset) {
      this.reply();
      this.#session._send({ type: 'DATA', streamId: this.id, flags: FLAG_FIN, data: Buffer.alloc(0) });
    }
    this.#localEnded = true;
    this.#maybeDone();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // destroyed by its user before both ends finished: tell the peer
    if (!this.#reset) {
      this.#reset = true;
      if (!(this.#localEnded && this.#remoteEnded)) this.#session._send({ type: 'RST_STREAM', streamId: this.id, status: RstStatus.CANCEL });
    }
    this.#session._forget(this.id);
    callback(error);
  }

  /** @internal */
  _onData(data: Buffer, fin: boolean): void {
    if (this.#remoteEnded) {
      this.#session._send({ type: 'RST_STREAM', streamId: this.id, status: RstStatus.STREAM_ALREADY_CLOSED });
      return;
    }
    if (data.length > 0) this.push(data);
    if (fin) this._onRemoteEnd();
  }

  /** @internal */
  _onRemoteEnd(): void {
    if (this.#remoteEnded) return;
    this.#remoteEnded = true;
    this.push(null);
    this.#maybeDone();
  }

  /** @internal */
  _onReply(headers: SpdyHeaders, fin: boolean): void {
    this.replyHeaders = headers;
    this.emit('reply', headers);
    if (fin) this._onRemoteEnd();
  }

  /** @internal the peer reset the stream, or the connection is gone */
  _onReset(why: string): void {
    if (this.#reset) return;
    this.#reset = true;
    this.#session._forget(this.id);
    if (!this.#remoteEnded) {
      this.#remoteEnded = true;
      this.push(null);
    }
    this.emit('reset', why);
    this.destroy();
  }

  #maybeDone(): void {
    if (this.#localEnded && this.#remoteEnded) this.#session._forget(this.id);
  }
}

/**
 * Events: 'stream' (a SpdyStream the peer opened; answer it with reply()), 'goaway', 'close'
 * (the socket is gone; every open stream has been reset), 'error' (a protocol error, before close).
 */
export class SpdySession extends EventEmitter {
  readonly #socket: Duplex;
  readonly #role: 'server' | 'client';
  readonly #encoder = new FrameEncoder();
  readonly #parser: FrameParser;
  readonly #streams = new Map<number, SpdyStream>();
  readonly #drainWaiters: (() => void)[] = [];
  #nextId: number;
  #lastPeerId = 0;
  #goneAway = false;
  #closed = false;

  constructor(options: SpdySessionOptions) {
    super();
    this.#socket = options.socket;
    this.#role = options.role;
    this.#nextId = options.role === 'client' ? 1 : 2;
    this.#parser = new FrameParser(
      (frame) => this.#onFrame(frame),
      (err) => {
        this.emit('error', err);
        this.#sendGoAway(1);
        this.destroy();
      },
    );
    this.#socket.on('data', (chunk: Buffer) => this.#parser.push(chunk));
    this.#socket.on('drain', () => {
      for (const waiter of this.#drainWaiters.splice(0)) waiter();
    });
    const gone = () => void this.#parser.drained().then(() => this.#onClosed());
    this.#socket.on('end', gone);
    this.#socket.on('close', gone);
    this.#socket.on('error', () => {
      // the close that follows tears the session down
    });
    if (options.head && options.head.length > 0) this.#parser.push(options.head);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** opens a stream (SYN_STREAM); its 'reply' event carries the peer's SYN_REPLY headers */
  openStream(headers: HeaderInit, options: { fin?: boolean; priority?: number } = {}): SpdyStream {
    if (this.#goneAway || this.#closed) throw new Error('the SPDY connection is closing: no new streams');
    const id = this.#nextId;
    this.#nextId += 2;
    const spdyHeaders = toSpdyHeaders(headers);
    const stream = new SpdyStream(this, id, spdyHeaders, true);
    this.#streams.set(id, stream);
    this._send({ type: 'SYN_STREAM', streamId: id, associatedToStreamId: 0, priority: options.priority ?? 0, flags: options.fin ? FLAG_FIN : 0, headers: spdyHeaders });
    if (options.fin) stream.end();
    return stream;
  }

  /** resolves with the stream once the peer's SYN_REPLY came; rejects on reset or timeout */
  waitReply(stream: SpdyStream, timeoutMs: number): Promise<SpdyStream> {
    if (stream.replyHeaders !== undefined) return Promise.resolve(stream);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to stream ${stream.id} within ${timeoutMs} ms`)), timeoutMs);
      stream.once('reply', () => {
        clearTimeout(timer);
        resolve(stream);
      });
      stream.once('reset', (why: string) => {
        clearTimeout(timer);
        reject(new Error(`stream ${stream.id} was reset: ${why}`));
      });
    });
  }

  /** GOAWAY, then the socket is ended once everything queued is written */
  close(): void {
    if (this.#closed) return;
    this.#sendGoAway(0);
    this.#socket.end();
  }

  destroy(): void {
    this.#socket.destroy();
    this.#onClosed();
  }

  /** @internal */
  _send(frame: SpdyFrame): void {
    if (this.#closed || this.#socket.destroyed || this.#socket.writableEnded) return;
    this.#socket.write(this.#encoder.encode(frame));
  }

  /** @internal calls back when the socket's buffer has room again */
  _whenWritable(callback: () => void): void {
    if (this.#closed || !this.#socket.writableNeedDrain) callback();
    else this.#drainWaiters.push(callback);
  }

  /** @internal */
  _forget(id: number): void {
    this.#streams.delete(id);
  }

  #sendGoAway(status: number): void {
    if (this.#goneAway) return;
    this.#goneAway = true;
    this._send({ type: 'GOAWAY', lastGoodStreamId: this.#lastPeerId, status });
  }

  #onFrame(frame: SpdyFrame): void {
    switch (frame.type) {
      case 'SYN_STREAM': {
        const peerParity = this.#role === 'server' ? 1 : 0;
        if (frame.streamId % 2 !== peerParity || frame.streamId <= this.#lastPeerId || this.#goneAway) {
          this._send({ type: 'RST_STREAM', streamId: frame.streamId, status: this.#goneAway ? RstStatus.REFUSED_STREAM : RstStatus.PROTOCOL_ERROR });
          return;
        }
        this.#lastPeerId = frame.streamId;
        const stream = new SpdyStream(this, frame.streamId, frame.headers, false);
        this.#streams.set(frame.streamId, stream);
        if (frame.flags & FLAG_FIN) stream._onRemoteEnd();
        if (frame.flags & FLAG_UNIDIRECTIONAL) stream.end();
        this.emit('stream', stream);
        return;
      }
      case 'SYN_REPLY':
        this.#streams.get(frame.streamId)?._onReply(frame.headers, (frame.flags & FLAG_FIN) !== 0);
        return;
      case 'HEADERS':
        if (frame.flags & FLAG_FIN) this.#streams.get(frame.streamId)?._onRemoteEnd();
        return;
      case 'DATA': {
        const stream = this.#streams.get(frame.streamId);
        if (stream === undefined) {
          this._send({ type: 'RST_STREAM', streamId: frame.streamId, status: RstStatus.INVALID_STREAM });
          return;
        }
        if (frame.data.length > 0) {
          this._send({ type: 'WINDOW_UPDATE', streamId: frame.streamId, deltaWindowSize: frame.data.length });
          this._send({ type: 'WINDOW_UPDATE', streamId: 0, deltaWindowSize: frame.data.length });
        }
        stream._onData(frame.data, (frame.flags & FLAG_FIN) !== 0);
        return;
      }
      case 'RST_STREAM':
        this.#streams.get(frame.streamId)?._onReset(`status ${frame.status}`);
        return;
      case 'PING': {
        // echo the peer's pings (odd ids come from clients, even ones from servers)
        const peerParity = this.#role === 'server' ? 1 : 0;
        if (frame.id % 2 === peerParity) this._send(frame);
        return;
      }
      case 'GOAWAY':
        this.#goneAway = true;
        this.emit('goaway', frame.lastGoodStreamId);
        return;
      case 'SETTINGS':
      case 'WINDOW_UPDATE':
      case 'UNKNOWN':
        return;
    }
  }

  #onClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#parser.stop();
    for (const stream of [...this.#streams.values()]) stream._onReset('the connection closed');
    this.#streams.clear();
    for (const waiter of this.#drainWaiters.splice(0)) waiter();
    if (!this.#socket.destroyed) this.#socket.end();
    this.emit('close');
  }
}
