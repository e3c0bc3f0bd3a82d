/**
 * The streaming protocols (src/nodeagent/streaming): SPDY/3.1 frames and header compression,
 * sessions over a socket, and the streaming server's exec (SPDY v2-v4, WebSocket v1/v4/v5 and
 * base64), its tokens and refusals, and port-forward, with a fake backend.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import zlib from 'node:zlib';
import t from 'tap';
import { SPDY3_HEADER_DICTIONARY, FLAG_FIN, FrameEncoder, FrameParser, HeaderCompressor, SpdySession, encodeHeaderPairs, type SpdyFrame } from '../../src/nodeagent/streaming/spdy';
import { ResizeDecoder, ResizeEvents } from '../../src/nodeagent/streaming/remotecommand';
import { RequestCache } from '../../src/nodeagent/streaming/request-cache';
import { StreamingServer, forwardTcp, type CommandResult, type CommandStreams, type ExecStreamRequest, type StreamingBackend } from '../../src/nodeagent/streaming';
import { spdyExec, spdyPortForwardOnce, spdyPortForwardSession, upgradeRequest, webSocketExec } from './process-streaming-client';

function parseAll(bytes: Buffer[]): Promise<SpdyFrame[]> {
  return new Promise((resolve, reject) => {
    const frames: SpdyFrame[] = [];
    const parser = new FrameParser((f) => frames.push(f), reject);
    for (const b of bytes) parser.push(b);
    void parser.drained().then(() => resolve(frames));
  });
}

t.test('the SPDY/3 header dictionary is the draft\'s 1423 bytes', async (t) => {
  t.equal(SPDY3_HEADER_DICTIONARY.length, 1423);
  t.equal(crypto.createHash('sha256').update(SPDY3_HEADER_DICTIONARY).digest('hex'), '51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
});

t.test('every frame type goes through the encoder and back through the parser', async (t) => {
  const encoder = new FrameEncoder();
  const frames: SpdyFrame[] = [
    { type: 'SYN_STREAM', streamId: 1, associatedToStreamId: 0, priority: 3, flags: 0, headers: { streamtype: ['error'], multi: ['a', 'b'] } },
    { type: 'SYN_REPLY', streamId: 1, flags: FLAG_FIN, headers: {} },
    { type: 'DATA', streamId: 1, flags: FLAG_FIN, data: Buffer.from('hello') },
    { type: 'HEADERS', streamId: 3, flags: 0, headers: { port: ['8080'] } },
    { type: 'RST_STREAM', streamId: 5, status: 5 },
    { type: 'SETTINGS', flags: 0, entries: [{ flags: 1, id: 7, value: 65536 }] },
    { type: 'PING', id: 7 },
    { type: 'GOAWAY', lastGoodStreamId: 9, status: 0 },
    { type: 'WINDOW_UPDATE', streamId: 0, deltaWindowSize: 1000 },
  ];
  const bytes = Buffer.concat(frames.map((f) => encoder.encode(f)));
  // byte by byte: the parser must wait for whole frames
  const parsed = await parseAll([...bytes].map((b) => Buffer.from([b])));
  t.same(parsed, frames);
  const data = encoder.encode({ type: 'DATA', streamId: 3, flags: 0, data: Buffer.from('x') });
  t.same([...data.subarray(0, 8)], [0, 0, 0, 3, 0, 0, 0, 1], 'a data frame: stream id, flags, 24-bit length');
  const ping = encoder.encode({ type: 'PING', id: 1 });
  t.same([...ping.subarray(0, 8)], [0x80, 3, 0, 6, 0, 0, 0, 4], 'a control frame: version 3, type, length');
});

t.test('header blocks: ours inflate with zlib and the dictionary; a real compressor\'s blocks parse in order', async (t) => {
  const compressor = new HeaderCompressor();
  const first = compressor.compress(Buffer.from('abc'));
  const second = compressor.compress(Buffer.from('defg'));
  const inflated = zlib.inflateSync(Buffer.concat([first, second]), { dictionary: SPDY3_HEADER_DICTIONARY, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  t.equal(inflated.toString(), 'abcdefg');

  // a Go client's framer: one zlib stream with the dictionary, flushed after each block
  const deflate = zlib.createDeflate({ dictionary: SPDY3_HEADER_DICTIONARY });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const block = async (pairs: Record<string, string>) => {
    const plain = encodeHeaderPairs(Object.fromEntries(Object.entries(pairs).map(([k, v]) => [k, [v]])));
    chunks.length = 0;
    deflate.write(plain);
    await new Promise<void>((resolve) => deflate.flush(zlib.constants.Z_SYNC_FLUSH, () => resolve()));
    return Buffer.concat(chunks);
  };
  const frame = (streamId: number, compressed: Buffer) => {
    const head = Buffer.alloc(18);
    head.writeUInt16BE(0x8003, 0);
    head.writeUInt16BE(1, 2);
    head.writeUInt32BE(10 + compressed.length, 4);
    head.writeUInt32BE(streamId, 8);
    return Buffer.concat([head, compressed]);
  };
  const a = frame(1, await block({ streamtype: 'error' }));
  const b = frame(3, await block({ streamtype: 'stdout' }));
  const parsed = await parseAll([a, b]);
  t.same(parsed.map((f) => (f.type === 'SYN_STREAM' ? [f.streamId, f.headers.streamtype] : f.type)), [[1, ['error']], [3, ['stdout']]]);
});

t.test('a malformed control frame stops the parser with an error', async (t) => {
  const bad = Buffer.from([0x80, 2, 0, 6, 0, 0, 0, 4, 0, 0, 0, 1]);
  await t.rejects(parseAll([bad]), /unsupported SPDY version 2/);
});

t.test('sessions: streams both ways, FIN, RST and PING echo over a socket pair', async (t) => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => server.close());
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const clientSocket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const serverSession = new SpdySession({ socket: await accepted, role: 'server' });
  const clientSession = new SpdySession({ socket: clientSocket, role: 'client' });
  serverSession.on('stream', (stream) => {
    stream.reply({ answer: 'yes' });
    if (stream.header('mode') === 'reset') return stream.reset();
    stream.on('data', (d: Buffer) => stream.write(d.toString().toUpperCase()));
    stream.on('end', () => stream.end('!'));
  });
  const echo = clientSession.openStream({ mode: 'echo' });
  await clientSession.waitReply(echo, 2000);
  t.same(echo.replyHeaders, { answer: ['yes'] });
  t.equal(echo.id, 1, 'a client\'s first stream is 1');
  let got = '';
  echo.on('data', (d: Buffer) => (got += d.toString()));
  echo.end('abc');
  await new Promise((resolve) => echo.on('end', resolve));
  t.equal(got, 'ABC!');

  const reset = clientSession.openStream({ mode: 'reset' });
  const why = await new Promise((resolve) => reset.on('reset', resolve));
  t.match(String(why), /status 5/, 'RST_STREAM CANCEL reaches the client');

  // a PING the client sends comes back: watch the raw bytes
  const pong = new Promise<boolean>((resolve) => clientSocket.on('data', (d: Buffer) => d.includes(Buffer.from([0x80, 3, 0, 6, 0, 0, 0, 4, 0, 0, 0, 9])) && resolve(true)));
  clientSocket.write(new FrameEncoder().encode({ type: 'PING', id: 9 }));
  t.ok(await pong, 'the server echoed the ping');
  const closed = new Promise((resolve) => serverSession.once('close', resolve));
  clientSession.close();
  await closed;
  t.ok(serverSession.closed, 'GOAWAY and the socket\'s end close the peer');
});

t.test('resize sizes: JSON objects back to back, cut anywhere', async (t) => {
  const events = new ResizeEvents();
  const sizes: unknown[] = [];
  events.on('resize', (s) => sizes.push(s));
  const decoder = new ResizeDecoder(events);
  decoder.write('{"Width":80,"He');
  decoder.write('ight":24}\n{"Width":100,"Height":40}');
  t.same(sizes, [{ width: 80, height: 24 }, { width: 100, height: 40 }]);
  t.same(await events.first(10), { width: 100, height: 40 });
});

t.test('request cache: one use per token, expiry, a bound', async (t) => {
  let now = 0;
  const cache = new RequestCache<string>({ ttlMs: 1000, max: 2, now: () => now });
  const a = cache.insert('a');
  t.match(a, /^[A-Za-z0-9_-]{11}$/, '11 URL-safe characters, as kubelet\'s tokens');
  t.equal(cache.consume(a), 'a');
  t.equal(cache.consume(a), undefined, 'a token serves once');
  const b = cache.insert('b');
  cache.insert('c');
  t.throws(() => cache.insert('d'), /maximum number of in-flight requests/);
  now = 1000;
  t.equal(cache.consume(b), undefined, 'an expired token is refused');
  t.ok(cache.insert('e'), 'expired entries make room');
});

/** a backend running a tiny command language: echo WORDS, cat, fail N, err TEXT */
function fakeBackend(): StreamingBackend & { ran: ExecStreamRequest[] } {
  const ran: ExecStreamRequest[] = [];
  return {
    ran,
    async exec(request, streams: CommandStreams): Promise<CommandResult> {
      ran.push(request);
      const [verb, ...rest] = request.cmd;
      if (verb === 'echo') streams.stdout?.write(`${rest.join(' ')}\n`);
      if (verb === 'err') streams.stderr?.write(`${rest.join(' ')}\n`);
      if (verb === 'cat' && streams.stdin) {
        for await (const chunk of streams.stdin) streams.stdout?.write(chunk);
      }
      if (verb === 'size') streams.stdout?.write(JSON.stringify(await streams.resize.first(2000)));
      if (verb === 'boom') return { error: 'no such thing' };
      return { exitCode: verb === 'fail' ? Number(rest[0]) : 0 };
    },
    async attach(): Promise<CommandResult> {
      return { exitCode: 0 };
    },
    async portForward(_sandbox: string, port: number, data: Duplex): Promise<void> {
      await forwardTcp('127.0.0.1', port, data);
    },
    describeSandbox: () => ({ name: 'web', uid: 'u1' }),
  };
}

t.test('the streaming server: exec over SPDY, WebSocket, tokens, refusals, port-forward', async (t) => {
  const backend = fakeBackend();
  const server = new StreamingServer({ backend, streamCreationTimeoutMs: 1000 });
  await server.start();
  t.teardown(() => server.close());
  const exec = (cmd: string[], extra: Partial<ExecStreamRequest> = {}) => server.getExec({ containerId: 'c1', cmd, tty: false, stdin: false, stdout: true, stderr: true, ...extra });
  t.match(exec(['echo']), /^http:\/\/127\.0\.0\.1:\d+\/exec\/[A-Za-z0-9_-]{11}$/);

  t.test('SPDY v4: output, the Status on success and on a non-zero exit', async (t) => {
    const ok = await spdyExec(exec(['echo', 'hi']));
    t.equal(ok.protocol, 'v4.channel.k8s.io');
    t.equal(ok.stdout, 'hi\n');
    t.same(JSON.parse(ok.error), { metadata: {}, status: 'Success' });
    const failed = await spdyExec(exec(['fail', '3']));
    const status = JSON.parse(failed.error);
    t.equal(status.status, 'Failure');
    t.equal(status.reason, 'NonZeroExitCode');
    t.same(status.details.causes, [{ reason: 'ExitCode', message: '3' }]);
    const broken = JSON.parse((await spdyExec(exec(['boom']))).error);
    t.equal(broken.reason, 'InternalError');
    t.match(broken.message, /no such thing/);
    const stderr = await spdyExec(exec(['err', 'oops']));
    t.equal(stderr.stderr, 'oops\n');
  });

  t.test('SPDY v2 and v3: text on failure, nothing on success', async (t) => {
    const v2 = await spdyExec(exec(['fail', '2']), { protocols: ['v2.channel.k8s.io'] });
    t.equal(v2.protocol, 'v2.channel.k8s.io');
    t.match(v2.error, /^command terminated with non-zero exit code: error executing command \[fail 2\], exit code 2$/);
    const v3 = await spdyExec(exec(['echo', 'x']), { protocols: ['v3.channel.k8s.io'] });
    t.equal(v3.error, '');
    t.equal(v3.stdout, 'x\n');
  });

  t.test('stdin goes to the command, its end ends the command\'s input', async (t) => {
    const out = await spdyExec(exec(['cat'], { stdin: true }), { stdin: 'line one\nline two\n' });
    t.equal(out.stdout, 'line one\nline two\n');
  });

  t.test('a tty\'s resize stream carries the terminal size', async (t) => {
    const out = await spdyExec(exec(['size'], { tty: true, stderr: false, stdin: true }), { tty: true, stdin: '', size: { width: 120, height: 33 } });
    t.same(JSON.parse(out.stdout), { width: 120, height: 33 });
  });

  t.test('refusals: an unknown protocol, a used token, no upgrade, an invalid request', async (t) => {
    const refused = await upgradeRequest(exec(['echo']), { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v9.channel.k8s.io' });
    t.equal(refused.status, 403);
    t.match(refused.body, /unable to negotiate protocol/);
    t.match(String(refused.headers['x-accepted-stream-protocol-versions']), /v4\.channel\.k8s\.io/);
    const url = exec(['echo', 'once']);
    t.equal((await spdyExec(url)).stdout, 'once\n');
    const again = await upgradeRequest(url, { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' });
    t.equal(again.status, 404, 'a token serves once');
    const plain = await upgradeRequest(exec(['echo']), {});
    t.equal(plain.status, 400);
    t.throws(() => exec(['echo'], { tty: true, stderr: true }), /tty and stderr cannot both be true/);
    t.throws(() => exec(['echo'], { stdout: false, stderr: false }), /one of stdin, stdout, or stderr must be set/);
  });

  t.test('a client that never opens its streams is cut off after the creation timeout', async (t) => {
    const up = await upgradeRequest(exec(['echo']), { Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': 'v4.channel.k8s.io' });
    t.equal(up.status, 101);
    const started = Date.now();
    await new Promise((resolve) => up.socket?.on('close', resolve).resume());
    t.ok(Date.now() - started >= 900, 'closed after about a second');
  });

  for (const [protocols, base64] of [[['v5.channel.k8s.io'], false], [['v4.channel.k8s.io'], false], [['v4.base64.channel.k8s.io'], true], [['base64.channel.k8s.io'], true], [['channel.k8s.io'], false]] as const) {
    t.test(`WebSocket ${protocols[0]}`, async (t) => {
      // only v5 can end stdin (its close signal); before it a client ends stdin by hanging up
      const v5 = protocols[0] === 'v5.channel.k8s.io';
      const ok = await webSocketExec(v5 ? exec(['cat'], { stdin: true }) : exec(['echo', 'typed']), { protocols: [...protocols], stdin: v5 ? 'typed' : undefined, base64 });
      t.equal(ok.protocol, protocols[0]);
      t.equal(ok.stdout, v5 ? 'typed' : 'typed\n', v5 ? 'v5 closes stdin with its close signal' : 'output on channel 1');
      t.equal(ok.channels[0], 1, 'the first message is on stdout');
      const failed = await webSocketExec(exec(['fail', '4']), { protocols: [...protocols], base64 });
      if (protocols[0].startsWith('v')) t.same(JSON.parse(failed.error).details.causes, [{ reason: 'ExitCode', message: '4' }]);
      else t.match(failed.error, /exit code 4/);
    });
  }

  t.test('WebSocket: an unknown subprotocol is refused', async (t) => {
    const refused = await upgradeRequest(exec(['echo']), { Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==', 'Sec-WebSocket-Protocol': 'v9.channel.k8s.io' });
    t.equal(refused.status, 403);
  });

  t.test('port-forward: two connections through one session, and a closed port\'s error', async (t) => {
    const echo = net.createServer((c) => c.on('data', (d) => c.write(`echo:${d}`)).on('end', () => c.end()));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', () => resolve()));
    t.teardown(() => echo.close());
    const port = (echo.address() as net.AddressInfo).port;
    const session = await spdyPortForwardSession(server.getPortForward({ podSandboxId: 's1', ports: [port] }));
    t.teardown(() => session.destroy());
    t.same(await spdyPortForwardOnce(session, 0, port, 'one'), { data: 'echo:one', error: '' });
    t.same(await spdyPortForwardOnce(session, 1, port, 'two'), { data: 'echo:two', error: '' });
    const closedPort = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const failed = await spdyPortForwardOnce(session, 2, closedPort, 'x');
    t.match(failed.error, new RegExp(`^error forwarding port ${closedPort} to pod web, uid u1: connect ECONNREFUSED`));
  });
});
