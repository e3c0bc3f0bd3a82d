import path from 'node:path';

/**
 * Where a log call was made, for --log-backtrace-at and --add-dir-header. Node's stack frames name
 * the compiled dist/**.js files; the logger turns on source maps (process.setSourceMapsEnabled) when
 * either flag is given, so frames name the TypeScript sources and their lines, and
 * `--log-backtrace-at=apiserver.ts:120` means line 120 of src/server/apiserver.ts.
 */
export interface CallSite {
  /** the source file as the stack names it (absolute path) */
  readonly file: string;
  readonly line: number;
}

/** the first frame of `stack` outside pino and the logging code */
export function callSiteOf(stack: string | undefined): CallSite | undefined {
  if (!stack) return undefined;
  for (const frame of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?[^()\s]+?):(\d+):\d+\)?\s*$/.exec(frame);
    if (!m) continue;
    const file = m[1].replace(/^file:\/\//, '');
    if (/[\\/]node_modules[\\/]pino[\\/]/.test(file) || /[\\/]server[\\/](logger|logging[\\/][^\\/]+)\.[jt]s$/.test(file) || file.startsWith('node:')) continue;
    return { file, line: Number(m[2]) };
  }
  return undefined;
}

export interface TraceLocation {
  readonly file: string;
  readonly line: number;
}

/** parse --log-backtrace-at (`file:N`, `:0` = off); throws with klog's wording on a bad value */
export function parseTraceLocation(text: string): TraceLocation | undefined {
  if (text === '' || text === ':0') return undefined;
  const colon = text.lastIndexOf(':');
  const file = text.slice(0, colon);
  const line = text.slice(colon + 1);
  if (colon <= 0 || !/^\d+$/.test(line) || file.includes('/')) throw new Error(`syntax error: expect file.ts:234, got ${JSON.stringify(text)}`);
  if (Number(line) <= 0) throw new Error(`negative or zero value for level: ${line}`);
  return Object.freeze({ file, line: Number(line) });
}

/** whether a call site is the --log-backtrace-at location (a .js name matches its .ts source too) */
export function atTraceLocation(site: CallSite, at: TraceLocation): boolean {
  if (site.line !== at.line) return false;
  const base = path.basename(site.file);
  const strip = (f: string) => f.replace(/\.(ts|js)$/, '');
  return base === at.file || strip(base) === strip(at.file);
}

/** `dir/file.ts:N`, as --add-dir-header shows a call site */
export function dirHeader(site: CallSite): string {
  return `${path.basename(path.dirname(site.file))}/${path.basename(site.file)}:${site.line}`;
}
