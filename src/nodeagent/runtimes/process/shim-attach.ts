/**
 * attach through the container's shim (shim-source.ts): connect to its abstract socket, say the
 * secret from spec.json and whether stdin is wanted, then relay the shim's output frames to the
 * client's streams and the client's stdin to the shim, until the command exits or the client
 * leaves; as kubelet's attach, the result is Success either way (the exit code is the pod's status).
 */
import net from 'node:net';
import path from 'node:path';
import type { AttachStreamRequest, CommandResult, CommandStreams } from '../../streaming';
import { readJsonFile } from './state';

export async function attachToShim(containerDir: string, request: AttachStreamRequest, streams: CommandStreams): Promise<CommandResult> {
  const spec = readJsonFile<{ attachName?: string; attachSecret?: string }>(path.join(containerDir, 'spec.json'));
  if (!spec?.attachName) return { error: 'the container\'s shim offers no attach (started by an older agent)' };
  const conn = net.connect({ path: spec.attachName });
  return new Promise<CommandResult>((resolve) => {
    let result: CommandResult | undefined;
    let pending = Buffer.alloc(0);
    const finish = (r: CommandResult) => {
      result ??= r;
      conn.destroy();
      resolve(result);
    };
    conn.once('error', (err) => finish(result ?? { error: `attach to the container's shim: ${err.message}` }));
    conn.once('connect', () => {
      conn.write(`${JSON.stringify({ secret: spec.attachSecret, stdin: request.stdin })}\n`);
      if (request.stdin && streams.stdin) {
        streams.stdin.on('data', (chunk: Buffer) => conn.write(chunk));
        streams.stdin.once('end', () => conn.end());
      }
    });
    conn.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 5) {
        const length = pending.readUInt32BE(1);
        if (pending.length < 5 + length) break;
        const type = pending[0];
        const data = pending.subarray(5, 5 + length);
        pending = pending.subarray(5 + length);
        if (type === 1) streams.stdout?.write(data);
        else if (type === 2) (streams.stderr ?? (streams.tty ? streams.stdout : undefined))?.write(data);
        // the command exited: attach ends with Success whatever its code (kubelet's ServeAttach)
        else if (type === 3) result = { exitCode: 0 };
      }
    });
    conn.once('close', () => finish(result ?? { exitCode: 0 }));
    streams.signal.addEventListener('abort', () => finish({ exitCode: 0 }));
  });
}
