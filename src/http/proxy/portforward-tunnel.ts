/**
 * kube 1.30's TunnelingHandler: port-forward for WebSocket clients that tunnel SPDY
 * (`SPDY/3.1+portforward.k8s.io`, kubectl 1.30+). The agent is asked for a SPDY upgrade with the
 * protocols the client named after the `SPDY/3.1+` prefix; when it switches, the client's
 * WebSocket is accepted with the chosen protocol prefixed again, and the SPDY session's bytes ride
 * in binary messages both ways: no channel byte, message boundaries mean nothing (client-go's
 * TunnelingConnection reads the messages as one byte stream). The agent's 101 answer itself is not
 * passed on. When the agent does not switch, its answer reaches the client as it came (the caller
 * streams it back as a plain response).
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import type { BackendAnswer } from './backend';
import { acceptWebSocket, pauseUntilDrain } from './websocket';

export const TUNNELING_PREFIX = 'SPDY/3.1+';
const KUBERNETES_SUFFIX = '.k8s.io';

/** the SPDY protocols a tunneling client offers (kube's spdyProtocolsFromWebsocketProtocols) */
export function tunneledSpdyProtocols(offered: string[]): string[] {
  return offered.filter((p) => p.startsWith(TUNNELING_PREFIX) && p.endsWith(KUBERNETES_SUFFIX)).map((p) => p.slice(TUNNELING_PREFIX.length));
}

/** the agent's request headers: the client's, the WebSocket ones swapped for a SPDY upgrade (kube's createSPDYRequest) */
export function spdyUpgradeHeaders(h: http.IncomingHttpHeaders, protocols: string[]): http.IncomingHttpHeaders {
  const out: http.IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(h)) {
    if (name.startsWith('sec-websocket-') || name === 'upgrade' || name === 'connection' || name === 'x-stream-protocol-version') continue;
    out[name] = value;
  }
  out.connection = 'Upgrade';
  out.upgrade = 'SPDY/3.1';
  out['x-stream-protocol-version'] = protocols.length === 1 ? protocols[0] : protocols;
  return out as http.IncomingHttpHeaders;
}

/**
 * Joins the client's WebSocket to the agent's switched connection. `answer` must be the agent's
 * 101 with a SPDY upgrade; resolves when both ends are closed.
 */
export function tunnel(req: http.IncomingMessage, client: Duplex, answer: Extract<BackendAnswer, { kind: 'upgrade' }>): Promise<void> {
  const chosen = String(answer.res.headers['x-stream-protocol-version'] ?? '').trim();
  const offered = new Set(String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim()));
  // gorilla's Upgrader answers only a protocol the client offered
  const protocol = chosen && offered.has(`${TUNNELING_PREFIX}${chosen}`) ? `${TUNNELING_PREFIX}${chosen}` : '';
  const ws = acceptWebSocket(req, client, protocol);
  const agent = answer.socket;
  return new Promise((resolve) => {
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      agent.destroy();
      ws.close(1000);
    };
    ws.on('message', (m: Buffer, binary: boolean) => {
      // the tunnel carries binary messages only (client-go refuses anything else)
      if (!binary) {
        ws.close(1003);
        agent.destroy();
        return;
      }
      if (!agent.write(m)) pauseUntilDrain(ws, agent);
    });
    ws.once('close', () => {
      end();
      resolve();
    });
    const fromAgent = (d: Buffer) => {
      if (!ws.send(d)) pauseUntilDrain(agent, ws.socket);
    };
    if (answer.head.length > 0) fromAgent(answer.head);
    agent.on('data', fromAgent);
    agent.once('end', end);
    agent.once('close', end);
    agent.once('error', end);
  });
}
