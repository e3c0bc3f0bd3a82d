/**
 * The WebSocket server end (src/http/proxy/websocket.ts) on its own: the handshake answer,
 * fragmented client messages joined, unmasked client frames refused (1002), the closing
 * handshake, and back-pressure waits that do not pile up.
 */
import type http from 'node:http';
import net from 'node:net';
import { PassThrough } from 'node:stream';
import t from 'tap';
import type { Test } from 'tap';
import { type WebSocketConnection, acceptWebSocket, pauseUntilDrain } from '../../src/http/proxy/websocket';
import { rawWebSocket } from './connect-websocket-clients';

/** a server that answers the first handshake with acceptWebSocket and hands the connection over */
async function serverEnd(t: Test, protocol: string) {
  let resolveConn: (c: WebSocketConnection) => void = () => {};
  const conn = new Promise<WebSocketConnection>((resolve) => (resolveConn = resolve));
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const key = /Sec-WebSocket-Key: (\S+)/.exec(buf.subarray(0, end).toString())?.[1];
      const rest = buf.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolveConn(acceptWebSocket({ headers: { 'sec-websocket-key': key } } as unknown as http.IncomingMessage, socket, protocol));
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  return { port: (server.address() as net.AddressInfo).port, conn };
}

t.test('handshake, fragments, ping, and the closing handshake', async (t) => {
  const { port, conn } = await serverEnd(t, 'v5.channel.k8s.io');
  const c = rawWebSocket(port, '/x', ['v5.channel.k8s.io']);
  const head = await c.ready();
  // SHA-1 of the key rawWebSocket sends and RFC 6455's GUID, in base64
  t.match(head, /^HTTP\/1.1 101 Switching Protocols\r\n/);
  t.match(head, /\r\nSec-WebSocket-Accept: BACScCJPNqyz\+UBoqMH89VmURoA=(\r|$)/);
  t.match(head, /\r\nSec-WebSocket-Protocol: v5.channel.k8s.io(\r|$)/);
  const ws = await conn;
  const messages: Array<[string, boolean]> = [];
  ws.on('message', (m, binary) => messages.push([m.toString(), binary]));
  c.send(1, Buffer.from('hel'), false);
  c.send(9, Buffer.from('mid')); // a ping between fragments is allowed
  c.send(0, Buffer.from('lo'));
  t.same(await c.next(), { opcode: 10, payload: Buffer.from('mid') }, 'the ping is answered with its payload');
  c.send(2, Buffer.alloc(300, 7));
  await new Promise((r) => setTimeout(r, 50));
  t.same(messages, [['hello', false], [Buffer.alloc(300, 7).toString(), true]], 'fragments joined; text and binary told apart');
  ws.send(Buffer.from([1, 2]));
  t.same(await c.next(), { opcode: 2, payload: Buffer.from([1, 2]) });
  const closed = new Promise<number | undefined>((resolve) => ws.once('close', resolve));
  ws.close(1000);
  t.same(await c.next(), { opcode: 8, payload: Buffer.from([0x03, 0xe8]) });
  c.send(8, Buffer.from([0x03, 0xe8]));
  t.equal(await closed, 1000, "the peer's close code");
  t.equal(ws.send(Buffer.from('late')), false, 'nothing is sent after the close');
});

t.test('an unmasked client frame is a protocol error (1002)', async (t) => {
  const { port, conn } = await serverEnd(t, '');
  const c = rawWebSocket(port, '/x', ['p']);
  t.notMatch(await c.ready(), /Sec-WebSocket-Protocol/, 'no protocol chosen, none answered');
  await conn;
  c.socket.write(Buffer.from([0x82, 0x01, 0x05]));
  t.same(await c.next(), { opcode: 8, payload: Buffer.from([0x03, 0xea]) });
});

t.test('back-pressure: the source waits for one drain of the sink', async (t) => {
  const sink = new PassThrough({ highWaterMark: 4 });
  let paused = 0;
  let resumed = 0;
  const source = { pause: () => paused++, resume: () => resumed++ };
  t.equal(sink.write(Buffer.alloc(10)), false);
  pauseUntilDrain(source, sink);
  pauseUntilDrain(source, sink);
  t.equal(paused, 2);
  t.equal(sink.listenerCount('drain'), 1, 'one wait for the drain');
  sink.read();
  await new Promise((r) => setImmediate(r));
  t.equal(resumed, 1, 'resumed once the sink drained');
  t.equal(sink.listenerCount('drain'), 0);
});
