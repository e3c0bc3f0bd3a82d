/** whole HTTP answers written to a socket taken over for an upgrade (no ServerResponse exists) */
import type { Duplex } from 'node:stream';

const PHRASES: Record<number, string> = { 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 500: 'Internal Server Error' };

export function writeRawResponse(socket: Duplex, code: number, contentType: string, body: string, headers: [string, string][] = []): void {
  const bytes = Buffer.from(body);
  const lines = [`HTTP/1.1 ${code} ${PHRASES[code] ?? 'Error'}`, `Content-Type: ${contentType}`, `Content-Length: ${bytes.length}`, 'Connection: close'];
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  socket.end(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), bytes]));
}

/** kube's Status JSON of a failure, as kubelet's streaming server answers a bad request */
export function writeRawStatus(socket: Duplex, code: number, message: string): void {
  const reason = code === 400 ? 'BadRequest' : code === 403 ? 'Forbidden' : code === 404 ? 'NotFound' : 'InternalError';
  writeRawResponse(socket, code, 'application/json', JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code }));
}
