/** The field manager of a request without ?fieldManager=, as kube's managerOrUserAgent. */

const MAX_BYTES = 128;

/** `kubectl/v1.32.0 (linux/amd64) kubernetes/abc` -> `kubectl`: before the first `/`, printable, at most 128 bytes */
export function managerFromUserAgent(userAgent: string | undefined): string {
  const head = (userAgent ?? '').split('/')[0];
  let out = '';
  for (const ch of head) {
    if (!/^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > MAX_BYTES) break;
    out += ch;
  }
  return out;
}

export function managerOf(fieldManager: string | undefined, userAgent: string | undefined): string {
  return fieldManager ? fieldManager : managerFromUserAgent(userAgent);
}
