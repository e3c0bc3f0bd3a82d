/**
 * A minimal DER reader: enough of ASN.1 to walk an X.509 certificate request and keep the exact
 * bytes of the parts a signature covers (re-encoding could change them). Throws DerError on
 * malformed input.
 */
export class DerError extends Error {}

export interface DerNode {
  /** the identifier octet (0x30 SEQUENCE, 0x06 OID, 0xa0 [0] constructed, ...) */
  tag: number;
  /** the whole element, header included */
  raw: Buffer;
  /** the contents */
  value: Buffer;
}

/** the element starting at `offset` */
export function readNode(buf: Buffer, offset = 0): DerNode {
  if (offset + 2 > buf.length) throw new DerError('data truncated');
  const tag = buf[offset];
  if ((tag & 0x1f) === 0x1f) throw new DerError('high-tag-number form not supported');
  let len = buf[offset + 1];
  let header = 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || offset + 2 + n > buf.length) throw new DerError('invalid length');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[offset + 2 + i];
    header += n;
  }
  const end = offset + header + len;
  if (end > buf.length) throw new DerError('data truncated');
  return { tag, raw: buf.subarray(offset, end), value: buf.subarray(offset + header, end) };
}

/** the elements inside a constructed element */
export function children(node: DerNode): DerNode[] {
  const out: DerNode[] = [];
  let offset = 0;
  while (offset < node.value.length) {
    const child = readNode(node.value, offset);
    out.push(child);
    offset += child.raw.length;
  }
  return out;
}

/** an OBJECT IDENTIFIER's dotted form */
export function oid(node: DerNode): string {
  const v = node.value;
  if (node.tag !== 0x06 || v.length === 0) throw new DerError('expected an object identifier');
  const parts: number[] = [Math.floor(v[0] / 40), v[0] % 40];
  let n = 0;
  for (let i = 1; i < v.length; i++) {
    n = n * 128 + (v[i] & 0x7f);
    if (!(v[i] & 0x80)) {
      parts.push(n);
      n = 0;
    }
  }
  return parts.join('.');
}

/** a string type (UTF8String, PrintableString, IA5String, ...) as text */
export function text(node: DerNode): string {
  return node.tag === 0x1e ? node.value.swap16().toString('utf16le') : node.value.toString('utf8');
}
