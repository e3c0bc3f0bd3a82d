/** A minimal DER writer: the few ASN.1 types an X.509 certificate needs. */

export function tlv(tag: number, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const n = body.length;
  let len: Buffer;
  if (n < 0x80) len = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
    len = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), len, body]);
}

export const seq = (...parts: Buffer[]) => tlv(0x30, ...parts);

/** a non-negative INTEGER from big-endian bytes */
export function integer(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const v = bytes.subarray(i);
  return tlv(0x02, v[0] & 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

export function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const out = [a * 40 + b];
  for (const n of rest) {
    const chunk: number[] = [n & 0x7f];
    for (let v = Math.floor(n / 128); v > 0; v = Math.floor(v / 128)) chunk.unshift((v & 0x7f) | 0x80);
    out.push(...chunk);
  }
  return tlv(0x06, Buffer.from(out));
}

export const bool = (v: boolean) => tlv(0x01, Buffer.from([v ? 0xff : 0]));
export const octets = (b: Buffer) => tlv(0x04, b);
export const nullValue = () => Buffer.from([0x05, 0x00]);

/** a BIT STRING of whole bytes */
export const bitString = (b: Buffer, unusedBits = 0) => tlv(0x03, Buffer.from([unusedBits]), b);

/** UTCTime until 2049, GeneralizedTime after (RFC 5280 4.1.2.5) */
export function time(d: Date): Buffer {
  const iso = d.toISOString().replace(/[-:T]/g, '').slice(0, 14) + 'Z';
  return d.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(iso.slice(2))) : tlv(0x18, Buffer.from(iso));
}
