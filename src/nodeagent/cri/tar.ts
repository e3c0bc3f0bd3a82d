/**
 * A tar writer for the offline OCI images (oci-archive.ts): POSIX ustar headers, files, directories
 * and symbolic links, everything in memory. Entries are written in the order given, with the owner,
 * mode and time given, so the same entries always give the same bytes (and the same digest).
 */

export type TarEntry =
  | { type: 'file'; path: string; data: Buffer; mode?: number; mtime?: number; uid?: number; gid?: number }
  | { type: 'directory'; path: string; mode?: number; mtime?: number; uid?: number; gid?: number }
  | { type: 'symlink'; path: string; target: string; mtime?: number; uid?: number; gid?: number };

const BLOCK = 512;

/** the archive's bytes: each entry's header and data padded to 512 bytes, then two zero blocks */
export function tarArchive(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.type === 'file' ? entry.data : Buffer.alloc(0);
    parts.push(header(entry, data.length));
    if (data.length > 0) {
      parts.push(data);
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

function header(entry: TarEntry, size: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  let name = entry.type === 'directory' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
  let prefix = '';
  if (Buffer.byteLength(name) > 100) {
    // ustar splits a long path at a slash: up to 155 bytes of prefix, up to 100 of name
    const cut = name.lastIndexOf('/', name.length - 2);
    prefix = name.slice(0, cut);
    name = name.slice(cut + 1);
    if (cut < 0 || Buffer.byteLength(prefix) > 155 || Buffer.byteLength(name) > 100) {
      throw new Error(`tar: path too long for ustar: ${entry.path}`);
    }
  }
  const defaultMode = entry.type === 'directory' ? 0o755 : entry.type === 'symlink' ? 0o777 : 0o644;
  const mode = entry.type === 'symlink' ? 0o777 : (entry.mode ?? defaultMode);
  h.write(name, 0, 100, 'utf8');
  octal(h, 100, 8, mode);
  octal(h, 108, 8, entry.uid ?? 0);
  octal(h, 116, 8, entry.gid ?? 0);
  octal(h, 124, 12, size);
  octal(h, 136, 12, entry.mtime ?? 0);
  h.write(entry.type === 'file' ? '0' : entry.type === 'directory' ? '5' : '2', 156, 1, 'ascii');
  if (entry.type === 'symlink') {
    if (Buffer.byteLength(entry.target) > 100) throw new Error(`tar: link target too long: ${entry.target}`);
    h.write(entry.target, 157, 100, 'utf8');
  }
  h.write('ustar\u000000', 257, 8, 'ascii');
  h.write('root', 265, 32, 'ascii');
  h.write('root', 297, 32, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  // the checksum is computed with its own field read as eight spaces
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\u0000 `, 148, 8, 'ascii');
  return h;
}

function octal(h: Buffer, offset: number, length: number, value: number): void {
  const text = value.toString(8);
  if (text.length > length - 1) throw new Error(`tar: value ${value} does not fit in ${length - 1} octal digits`);
  h.write(`${text.padStart(length - 1, '0')}\u0000`, offset, length, 'ascii');
}
