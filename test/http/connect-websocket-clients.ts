/**
 * WebSocket clients for the connect tests: the `ws` package (typed here: the package ships no
 * types) recording what it receives, a bare client for what `ws` refuses to send, and our SPDY
 * header blocks read back. Light on purpose: no API server modules, so unit tests load fast.
 */
import type http from 'node:http';
import net from 'node:net';

/** the parts of ws's client we use */
export interface WsClient {
  readonly protocol: string;
  readonly readyState: number;
  send(data: Buffer | string, cb?: (err?: Error) => void): void;
  ping(data?: Buffer): void;
  close(code?: number): void;
  terminate(): void;
  on(event: 'message', cb: (data: Buffer, isBinary: boolean) => void): this;
  on(event: 'close', cb: (code: number, reason: Buffer) => void): this;
  on(event: 'open' | 'pong', cb: () => void): this;
  on(event: 'error', cb: (err: Error) => void): this;
  on(event: 'unexpected-response', cb: (req: http.ClientRequest, res: http.IncomingMessage) => void): this;
}
type WsConstructor = new (url: string, protocols: string[], options?: Record<string, unknown>) => WsClient;
export const WebSocket = require('ws') as WsConstructor; // eslint-disable-line @typescript-eslint/no-require-imports

/** a client that records every message; `next()` waits for the next one */
export function recordingClient(url: string, protocols: string[], options?: Record<string, unknown>) {
  const ws = new WebSocket(url, protocols, options);
  const messages: Buffer[] = [];
  const waiters: Array<() => void> = [];
  ws.on('message', (d: Buffer) => {
    messages.push(Buffer.from(d));
    for (const w of waiters.splice(0)) w();
  });
  let closedWith: number | undefined;
  const closed = new Promise<number>((resolve) =>
    ws.on('close', (code: number) => {
      closedWith = code;
      for (const w of waiters.splice(0)) w();
      resolve(code);
    }),
  );
  const opened = new Promise<void>((resolve, reject) => {
    ws.on('open', () => resolve());
    ws.on('error', reject);
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => reject(Object.assign(new Error(`unexpected response ${res.statusCode}`), { status: res.statusCode, body })));
    });
  });
  let read = 0;
  const next = async (): Promise<Buffer> => {
    while (read >= messages.length) {
      if (closedWith !== undefined) throw new Error(`the connection closed (${closedWith}) after ${messages.length} messages`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
    return messages[read++];
  };
  /** messages until one on `channel` (v5 channel byte), returned with everything seen on the way */
  const until = async (channel: number): Promise<{ hit: Buffer; seen: Buffer[] }> => {
    const seen: Buffer[] = [];
    for (;;) {
      const m = await next();
      if (m[0] === channel) return { hit: m, seen };
      seen.push(m);
    }
  };
  return { ws, messages, next, until, opened, closed };
}

/** our stored-block header block, read back (the first one opens with the zlib header) */
export function readHeaderBlock(block: Buffer, first: boolean): Record<string, string> {
  let at = first ? 6 : 0;
  const plain: Buffer[] = [];
  while (at < block.length) {
    const len = block.readUInt16LE(at + 1);
    plain.push(block.subarray(at + 5, at + 5 + len));
    at += 5 + len;
  }
  const p = Buffer.concat(plain);
  const out: Record<string, string> = {};
  let i = 4;
  for (let n = p.readUInt32BE(0); n > 0; n--) {
    const nl = p.readUInt32BE(i);
    const name = p.subarray(i + 4, i + 4 + nl).toString();
    i += 4 + nl;
    const vl = p.readUInt32BE(i);
    out[name] = p.subarray(i + 4, i + 4 + vl).toString();
    i += 4 + vl;
  }
  return out;
}


/**
 * A bare client for what the `ws` package refuses to send (a subprotocol with `/` or `+`, as
 * gorilla sends `SPDY/3.1+portforward.k8s.io`): the handshake by hand, masked frames out, frames in.
 */
export function rawWebSocket(port: number, pathAndQuery: string, protocols: string[]) {
  const socket = net.connect(port, '127.0.0.1');
  const key = Buffer.from('0123456789abcdef').toString('base64');
  socket.write(
    [`GET ${pathAndQuery} HTTP/1.1`, `Host: 127.0.0.1:${port}`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', `Sec-WebSocket-Key: ${key}`, `Sec-WebSocket-Protocol: ${protocols.join(', ')}`, '', ''].join('\r\n'),
  );
  let buf = Buffer.alloc(0);
  let head: string | undefined;
  const frames: Array<{ opcode: number; payload: Buffer }> = [];
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    if (head === undefined) {
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      head = buf.subarray(0, end).toString();
      buf = buf.subarray(end + 4);
    }
    // an answer that is not 101 has a body, not frames: left whole for rest()
    if (!head.startsWith('HTTP/1.1 101 ')) {
      wake();
      return;
    }
    for (;;) {
      if (buf.length < 2) break;
      let len = buf[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) break;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) break;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      if (buf.length < at + len) break;
      frames.push({ opcode: buf[0] & 0x0f, payload: buf.subarray(at, at + len) });
      buf = buf.subarray(at + len);
    }
    wake();
  });
  socket.on('close', wake);
  let read = 0;
  const ready = async (): Promise<string> => {
    while (head === undefined && !socket.destroyed) await new Promise<void>((resolve) => waiters.push(resolve));
    return head ?? '';
  };
  const next = async () => {
    while (read >= frames.length && !socket.destroyed) await new Promise<void>((resolve) => waiters.push(resolve));
    return frames[read++];
  };
  const send = (opcode: number, payload: Buffer, fin = true) => {
    const mask = Buffer.from([1, 2, 3, 4]);
    const masked = Buffer.from(payload.map((b, i) => b ^ mask[i & 3]));
    const len = payload.length < 126 ? Buffer.from([0x80 | payload.length]) : Buffer.from([0x80 | 126, payload.length >> 8, payload.length & 0xff]);
    socket.write(Buffer.concat([Buffer.from([(fin ? 0x80 : 0) | opcode]), len, mask, masked]));
  };
  const rest = () => buf;
  return { socket, ready, next, send, rest };
}
