/**
 * Termination messages as kubelet reads them (kuberuntime_container.go getTerminationMessage and
 * readLastStringFromContainerLogs): the last 4096 bytes of the file mounted at
 * terminationMessagePath; with FallbackToLogsOnError, when that is empty and the container failed,
 * the tail of its log (80 lines, at most 2048 bytes). A pod's messages share 12 KiB.
 */
import fs from 'node:fs';

export const MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH = 4096;
export const MAX_POD_TERMINATION_MESSAGE_LENGTH = 12 * 1024;
export const MAX_TERMINATION_MESSAGE_LOG_LENGTH = 2048;
export const MAX_TERMINATION_MESSAGE_LOG_LINES = 80;

/** the last `max` bytes of a file */
export function readTail(file: string, max: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    fs.readSync(fd, buffer, 0, length, size - length);
    return buffer;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * the message from the file mounted at `terminationMessagePath` (`mounts` are the container's as the
 * runtime reports them), and whether the log must be read instead
 */
export function terminationMessageFromFile(mounts: { containerPath: string; hostPath: string }[], terminationMessagePath: string, fallbackToLogs: boolean): { message: string; checkLogs: boolean } {
  if (terminationMessagePath === '') return { message: '', checkLogs: fallbackToLogs };
  const mount = mounts.find((m) => m.containerPath === terminationMessagePath);
  if (!mount) return { message: '', checkLogs: fallbackToLogs };
  try {
    const data = readTail(mount.hostPath, MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH).toString('utf8');
    return { message: data, checkLogs: fallbackToLogs && data.length === 0 };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { message: '', checkLogs: fallbackToLogs };
    return { message: `Error on reading termination log ${mount.hostPath}: ${(err as Error).message}`, checkLogs: false };
  }
}

/** the content of CRI-format log lines (`<time> <stream> <P|F> <text>`), partial lines joined */
export function parseCriLog(text: string): string[] {
  const lines: string[] = [];
  let partial = '';
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    const m = /^\S+ (?:stdout|stderr) ([PF])(?: (.*))?$/.exec(raw);
    if (!m) continue;
    partial += m[2] ?? '';
    if (m[1] === 'F') {
      lines.push(partial);
      partial = '';
    }
  }
  if (partial !== '') lines.push(partial);
  return lines;
}

/** the last 80 lines of a container's log, at most its last 2048 bytes */
export function lastStringFromContainerLog(logPath: string): string {
  let text: string;
  try {
    // 80 lines of at most 16 KiB each is more than any tail we keep; read a bounded tail
    text = readTail(logPath, 1024 * 1024).toString('utf8');
  } catch (err) {
    return `Error on reading termination message from logs: ${(err as Error).message}`;
  }
  const lines = parseCriLog(text).slice(-MAX_TERMINATION_MESSAGE_LOG_LINES);
  const joined = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
  return joined.subarray(Math.max(0, joined.length - MAX_TERMINATION_MESSAGE_LOG_LENGTH)).toString('utf8');
}

/** each message cut to its share of the pod's 12 KiB when together they exceed it (the tail is kept) */
export function capPodTerminationMessages(messages: string[]): string[] {
  const total = messages.reduce((sum, m) => sum + Buffer.byteLength(m), 0);
  if (total <= MAX_POD_TERMINATION_MESSAGE_LENGTH) return messages;
  const budget = Math.floor(MAX_POD_TERMINATION_MESSAGE_LENGTH / messages.filter((m) => m !== '').length);
  return messages.map((m) => {
    const bytes = Buffer.from(m, 'utf8');
    return bytes.length <= budget ? m : bytes.subarray(bytes.length - budget).toString('utf8');
  });
}
