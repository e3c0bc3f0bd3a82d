/**
 * port-forward over SPDY/3.1 (kubelet's portforward httpStreamHandler, protocol
 * portforward.k8s.io): for each local connection the client opens an error stream and a data
 * stream, both with headers `port` and `requestID`; once both came the server connects to the port
 * and copies bytes both ways on the data stream; a failure's message goes on the error stream.
 * Streams of one pair that do not both come within the creation timeout are reset.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from './spdy';
import { PORT_FORWARD_PROTOCOL } from './remotecommand';
import { closeSession, spdyHandshake } from './spdy-remotecommand';

/** connects `data` to the port and resolves when the forwarding is over; rejects when it cannot start */
export type PortForwarder = (port: number, data: Duplex) => Promise<void>;

interface Pair {
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}

export async function serveSpdyPortForward(options: {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
  /** what kubelet names in its messages: pod name and uid */
  podName: string;
  podUid: string;
  streamCreationTimeoutMs: number;
  forward: PortForwarder;
}): Promise<void> {
  const { req, socket, head } = options;
  const protocol = spdyHandshake(req, socket, [PORT_FORWARD_PROTOCOL], PORT_FORWARD_PROTOCOL);
  if (protocol === undefined) return;
  const session = new SpdySession({ socket, role: 'server', head });
  session.on('error', () => {
    // the session closes; the streams' forwarding ends with it
  });
  const pairs = new Map<string, Pair>();
  const forwarding = new Set<Promise<void>>();

  const start = (requestId: string, pair: Pair) => {
    clearTimeout(pair.timer);
    pairs.delete(requestId);
    const data = pair.data as SpdyStream;
    const error = pair.error as SpdyStream;
    const portText = data.header('port');
    const port = Number(portText);
    const done = (async () => {
      try {
        if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new Error(`invalid port "${portText}"`);
        await options.forward(port, data);
      } catch (err) {
        const message = `error forwarding port ${portText} to pod ${options.podName}, uid ${options.podUid}: ${(err as Error).message}`;
        if (!error.destroyed) error.write(message);
      } finally {
        if (!error.destroyed) error.end();
        if (!data.destroyed && !data.writableEnded) data.end();
      }
    })();
    forwarding.add(done);
    void done.then(() => forwarding.delete(done));
  };

  session.on('stream', (stream: SpdyStream) => {
    const type = stream.header('streamType');
    if (type !== 'data' && type !== 'error') {
      stream.reset();
      return;
    }
    stream.reply();
    // clients before kube 1.6 sent no requestID: a pair is then the stream and the one before it
    const requestId = stream.header('requestID') || String(type === 'error' ? stream.id : stream.id - 2);
    let pair = pairs.get(requestId);
    if (pair === undefined) {
      const timer = setTimeout(() => {
        pairs.delete(requestId);
        const p = pair as Pair;
        if (p.error && !p.error.destroyed) p.error.end(`timed out waiting for the other stream of request ${requestId}`);
        p.data?.reset();
      }, options.streamCreationTimeoutMs);
      pair = { timer };
      pairs.set(requestId, pair);
    }
    if (pair[type] !== undefined) {
      stream.reset();
      return;
    }
    pair[type] = stream;
    if (pair.data && pair.error) start(requestId, pair);
  });

  await new Promise<void>((resolve) => session.once('close', () => resolve()));
  for (const pair of pairs.values()) clearTimeout(pair.timer);
  await Promise.all([...forwarding]);
  await closeSession(session);
}
