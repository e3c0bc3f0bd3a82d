/** port-forward's last step: a stream joined to a TCP connection, bytes both ways, half-closes kept */
import net from 'node:net';
import type { Duplex } from 'node:stream';

/** rejects when the connection cannot be made; resolves when both directions are over */
export function forwardTcp(host: string, port: number, data: Duplex): Promise<void> {
  return new Promise((resolve, reject) => {
    let connected = false;
    const conn = net.connect({ host, port });
    conn.once('connect', () => {
      connected = true;
      data.pipe(conn);
      conn.pipe(data);
    });
    conn.once('error', (err) => {
      if (!connected) reject(err);
      else data.destroy();
    });
    conn.once('close', () => resolve());
    data.once('close', () => conn.destroy());
    data.once('error', () => conn.destroy());
  });
}
