/**
 * kube 1.30's WebSocket paths of exec, attach and port-forward, with a raw WebSocket client (the
 * `ws` package, speaking as client-go does) against the API app and a fake agent that serves the
 * SPDY side as a runtime's streaming server would.
 */
import net from 'node:net';
import t from 'tap';
import {
  type SeenRequest,
  type SpdyServerSession,
  WebSocket,
  fakeAgent,
  rawWebSocket,
  recordingClient,
  serveApi,
  spdyServer,
  switchToSpdy,
} from './connect-websocket-helpers';

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
const RESIZE = 4;
const CLOSE = 255;

const msg = (channel: number, text = '') => Buffer.concat([Buffer.from([channel]), Buffer.from(text)]);
const exitStatus = (code: number) =>
  JSON.stringify({
    metadata: {}, status: 'Failure', message: `command terminated with non-zero exit code: error executing command, exit code ${code}`,
    reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  });

/** an agent whose exec upper-cases stdin to stdout until stdin's FIN, then exits 3 */
function catAgent(t: Parameters<typeof fakeAgent>[0], expected: number, onSession?: (s: SpdyServerSession) => void) {
  return fakeAgent(t, (_req, socket) => {
    switchToSpdy(socket, 'v4.channel.k8s.io');
    spdyServer(socket, expected, (s) => {
      onSession?.(s);
      s.send('stderr', 'started\n');
      s.onData = (stream, d) => {
        if (stream.type === 'stdin') s.send('stdout', d.toString().toUpperCase());
      };
      s.onFin = (stream) => {
        if (stream.type !== 'stdin') return;
        s.send('error', exitStatus(3), true);
        s.finish('stdout');
        s.finish('stderr');
        s.goAway();
      };
    });
  });
}

t.test('exec over v5: the translator speaks SPDY v4 to the agent, relays channels, and the close signal ends stdin', async (t) => {
  const agent = await catAgent(t, 4);
  const api = await serveApi(t, agent.port);
  const c = recordingClient(`${api.ws}/pods/one/exec?command=cat&stdin=true&stdout=true&stderr=true`, ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
  await c.opened;
  t.equal(c.ws.protocol, 'v5.channel.k8s.io', 'v5 is chosen (kube translates only v5)');
  t.same(await c.next(), msg(STDOUT), 'an empty stdout message says the streams are up');
  t.same(await c.next(), msg(STDERR, 'started\n'));
  c.ws.send(msg(STDIN, 'hello'));
  t.same(await c.next(), msg(STDOUT, 'HELLO'));
  c.ws.send(Buffer.from([CLOSE, STDIN]));
  const { hit } = await c.until(ERROR);
  const status = JSON.parse(hit.subarray(1).toString());
  t.match(status, { status: 'Failure', reason: 'NonZeroExitCode', details: { causes: [{ reason: 'ExitCode', message: '3' }] } }, "the runtime's Status reaches the client");
  t.equal(await c.closed, 1000, 'the server closes normally after the Status');

  const seen: SeenRequest = agent.seen[0];
  t.equal(seen.url, '/exec/default/one/only?input=1&output=1&error=1&command=cat');
  t.equal(seen.headers.upgrade, 'SPDY/3.1');
  t.equal(seen.headers['x-stream-protocol-version'], 'v4.channel.k8s.io');
  t.equal(seen.headers['sec-websocket-protocol'], undefined, 'the agent gets no WebSocket headers');
});

t.test('exec over v5 with a TTY: resize passes through, no stderr stream; a Success status when the runtime writes none', async (t) => {
  let session: SpdyServerSession | undefined;
  const resized = new Promise<string>((resolve) => {
    void fakeAgent(t, (_req, socket) => {
      switchToSpdy(socket, 'v4.channel.k8s.io');
      spdyServer(socket, 4, (s) => {
        session = s;
        s.onData = (stream, d) => {
          if (stream.type === 'resize') {
            resolve(d.toString());
            s.send('stdout', 'bye\r\n', true);
            s.finish('error');
            s.goAway();
          }
        };
      });
    }).then((agent) => serveApi(t, agent.port).then((api) => run(api.ws)));
  });
  let done: Promise<void> = Promise.resolve();
  const run = (base: string) => {
    done = (async () => {
      const c = recordingClient(`${base}/pods/two/exec?container=a&command=sh&stdin=true&stdout=true&stderr=true&tty=true`, ['v5.channel.k8s.io']);
      await c.opened;
      t.same(await c.next(), msg(STDOUT));
      c.ws.send(msg(RESIZE, '{"Width":80,"Height":24}\n'));
      const { hit, seen } = await c.until(ERROR);
      t.same(seen, [msg(STDOUT, 'bye\r\n')], 'output before the status');
      t.same(JSON.parse(hit.subarray(1).toString()), { metadata: {}, status: 'Success' });
      t.equal(await c.closed, 1000);
    })();
  };
  t.equal(await resized, '{"Width":80,"Height":24}\n', 'the resize event reaches the resize stream');
  await new Promise((r) => setTimeout(r, 10));
  await done;
  t.same([...session!.streams.values()].map((s) => s.type), ['error', 'stdin', 'stdout', 'resize'], 'streams in client-go order, stderr left out with a TTY');
});

t.test("attach over v5: an agent's refusal after the upgrade is a Status on the error channel", async (t) => {
  const agent = await fakeAgent(t, (_req, socket) => {
    const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'container not found ("only")', reason: 'NotFound', code: 404 });
    socket.end(`HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  });
  const api = await serveApi(t, agent.port);
  const c = recordingClient(`${api.ws}/pods/one/attach?stdout=true`, ['v5.channel.k8s.io']);
  await c.opened;
  t.same(await c.next(), msg(STDOUT));
  const { hit } = await c.until(ERROR);
  t.match(JSON.parse(hit.subarray(1).toString()), { kind: 'Status', status: 'Failure', reason: 'NotFound', message: 'container not found ("only")' });
  t.equal(await c.closed, 1000);
  t.equal(agent.seen[0].url, '/attach/default/one/only?output=1');

  const plain = await fakeAgent(t, (_req, socket) => socket.end('HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom'));
  const api2 = await serveApi(t, plain.port);
  const c2 = recordingClient(`${api2.ws}/pods/one/attach?stderr=true`, ['v5.channel.k8s.io']);
  await c2.opened;
  t.same(await c2.next(), msg(STDERR), 'without stdout, the empty message is on stderr');
  const { hit: hit2 } = await c2.until(ERROR);
  t.match(JSON.parse(hit2.subarray(1).toString()), { status: 'Failure', reason: 'InternalError', code: 500, message: 'Internal error occurred: unable to upgrade connection: boom' });
});

t.test("kube's errors found before the upgrade stay plain Status answers", async (t) => {
  const agent = await catAgent(t, 4);
  const api = await serveApi(t, agent.port);
  const refused = async (path: string, protocols = ['v5.channel.k8s.io']) => {
    const c = recordingClient(`${api.ws}${path}`, protocols);
    const err = await c.opened.then(() => undefined, (e: { status?: number; body?: string }) => e);
    c.ws.terminate();
    return err;
  };
  t.match(await refused('/pods/two/exec?command=ls&stdout=true'), { status: 400, body: /a container name must be specified for pod two, choose one of: \[a b\]/ });
  t.match(await refused('/pods/one/exec?container=nope&command=ls&stdout=true'), { status: 400, body: /container nope is not valid for pod one/ });
  t.match(await refused('/pods/unbound/exec?command=ls&stdout=true'), { status: 400, body: /pod unbound does not have a host assigned/ });
  t.match(await refused('/pods/one/exec?stdout=true'), { status: 400, body: /you must specify at least 1 command/ });
  t.match(await refused('/pods/gone/exec?command=ls&stdout=true'), { status: 404, body: /pods \\"gone\\" not found/ });
  t.equal(agent.seen.length, 0, 'the agent is not asked');
});

t.test('port-forward tunnelled: the agent gets a SPDY upgrade, the client the SPDY bytes in binary messages', async (t) => {
  const agent = await fakeAgent(t, (req, socket) => {
    if (req.url?.startsWith('/portForward/default/two')) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 18\r\n\r\npod does not exist');
      return;
    }
    switchToSpdy(socket, 'portforward.k8s.io');
    socket.write('spdy-hello');
    socket.on('data', (d: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), d])));
  });
  const api = await serveApi(t, agent.port);
  const NS = '/api/v1/namespaces/default';
  const c = rawWebSocket(api.port, `${NS}/pods/one/portforward?ports=8080`, ['SPDY/3.1+portforward.k8s.io']);
  const head = await c.ready();
  t.match(head, /^HTTP\/1.1 101 /);
  t.match(head, /\r\nSec-WebSocket-Protocol: SPDY\/3.1\+portforward.k8s.io(\r|$)/, "the agent's choice, prefixed again");
  t.same(await c.next(), { opcode: 2, payload: Buffer.from('spdy-hello') }, 'a binary message without a channel byte; the 101 is not passed on');
  // a message in two fragments is one piece of the byte stream
  c.send(2, Buffer.from([0x80, 0x03]), false);
  c.send(0, Buffer.from([0x00, 0x01]));
  t.same(await c.next(), { opcode: 2, payload: Buffer.concat([Buffer.from('echo:'), Buffer.from([0x80, 0x03, 0x00, 0x01])]) });
  c.send(8, Buffer.from([0x03, 0xe8]));
  const closing = await c.next();
  t.same(closing, { opcode: 8, payload: Buffer.from([0x03, 0xe8]) }, 'the close is answered with 1000');
  const seen = agent.seen[0];
  t.equal(seen.url, '/portForward/default/one?port=8080');
  t.equal(seen.headers.upgrade, 'SPDY/3.1');
  t.equal(seen.headers['x-stream-protocol-version'], 'portforward.k8s.io');
  t.equal(seen.headers['sec-websocket-key'], undefined);

  const gone = rawWebSocket(api.port, `${NS}/pods/two/portforward?ports=80`, ['SPDY/3.1+portforward.k8s.io']);
  t.match(await gone.ready(), /^HTTP\/1.1 404 /, "the agent's refusal reaches the client as it was");
  await new Promise((r) => setTimeout(r, 50));
  t.match(gone.rest().toString(), /pod does not exist/, "the agent's body too");
  gone.socket.destroy();
  c.socket.destroy();
});

t.test('other WebSocket protocols (v4, old port-forward) are relayed to the agent as they came', async (t) => {
  const agent = await fakeAgent(t, (req, socket) => {
    // a stand-in for the runtime's WebSocket server: answers the handshake, then echoes raw bytes
    const key = String(req.headers['sec-websocket-key']);
    const accept = require('node:crypto').createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64') as string;
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${String(req.headers['sec-websocket-protocol']).split(',')[0].trim()}\r\n\r\n`);
    socket.write(Buffer.from([0x82, 0x01, 0x01]));
  });
  const api = await serveApi(t, agent.port);
  const v4 = recordingClient(`${api.ws}/pods/one/exec?command=ls&stdout=true`, ['v4.channel.k8s.io']);
  await v4.opened;
  t.equal(v4.ws.protocol, 'v4.channel.k8s.io');
  t.same(await v4.next(), Buffer.from([1]), "the runtime's frames pass through");
  v4.ws.terminate();
  t.equal(agent.seen[0].headers['sec-websocket-protocol'], 'v4.channel.k8s.io');
  t.equal(agent.seen[0].headers.upgrade, 'websocket');
  const pf = recordingClient(`${api.ws}/pods/one/portforward?ports=80`, ['v4.channel.k8s.io']);
  await pf.opened;
  pf.ws.terminate();
  t.equal(agent.seen[1].url, '/portForward/default/one?port=80');
});

t.test('the WebSocket end answers pings and takes large messages', async (t) => {
  const big = Buffer.alloc(200_000, 0x61);
  let got = 0;
  const received = new Promise<void>((resolve) => {
    void fakeAgent(t, (_req, socket) => {
      switchToSpdy(socket, 'v4.channel.k8s.io');
      spdyServer(socket, 3, (s) => {
        s.onData = (stream, d) => {
          if (stream.type !== 'stdin') return;
          got += d.length;
          if (got === big.length + 3) {
            s.send('error', '', true);
            s.goAway();
            resolve();
          }
        };
      });
    }).then(async (agent) => {
      const api = await serveApi(t, agent.port);
      const ws = new WebSocket(`${api.ws}/pods/one/exec?command=cat&stdin=true&stdout=true`, ['v5.channel.k8s.io']);
      const pong = new Promise<void>((resolve) => ws.on('pong', () => resolve()));
      await new Promise<void>((resolve) => ws.on('open', () => resolve()));
      ws.ping(Buffer.from('hb'));
      await pong;
      t.pass('a ping is answered');
      ws.send(Buffer.concat([Buffer.from([STDIN]), big]));
      ws.send(msg(STDIN, 'end'));
    });
  });
  await received;
  t.equal(got, big.length + 3, 'every byte reached the stdin stream');
});

t.test('the tunnel refuses an agent that switches to anything but SPDY, and a handshake that is not GET', async (t) => {
  const agent = await fakeAgent(t, (_req, socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n');
  });
  const api = await serveApi(t, agent.port);
  const NS = '/api/v1/namespaces/default';
  const c = rawWebSocket(api.port, `${NS}/pods/one/portforward?ports=80`, ['SPDY/3.1+portforward.k8s.io']);
  t.match(await c.ready(), /^HTTP\/1.1 500 /);
  await new Promise((r) => setTimeout(r, 50));
  t.match(c.rest().toString(), /unable to upgrade: missing upgrade headers in response/);
  c.socket.destroy();

  const post = await new Promise<string>((resolve) => {
    const s = net.connect(api.port, '127.0.0.1', () =>
      s.write(`POST ${NS}/pods/one/exec?command=ls&stdout=true HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: MDEyMzQ1Njc4OWFiY2RlZg==\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`),
    );
    let text = '';
    s.on('data', (d: Buffer) => (text += d.toString()));
    s.on('close', () => resolve(text));
    setTimeout(() => s.destroy(), 1000);
  });
  t.match(post, /^HTTP\/1.1 400 /);
  t.match(post, /request method is not GET/);
  t.equal(agent.seen.length, 1, 'only the port-forward reached the agent');
});
