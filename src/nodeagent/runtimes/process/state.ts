/**
 * The process runtime's records and their files: one JSON file per sandbox
 * (`<state>/sandboxes/<id>/sandbox.json`) and per container (`<state>/containers/<id>/container.json`,
 * beside the shim's files), written to a temporary name and renamed, so a restarted agent reads
 * every record whole.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { CriError } from '../../cri/cri-error';

export interface SandboxRecord {
  id: string;
  name: string;
  namespace: string;
  uid: string;
  attempt: number;
  state: 'SANDBOX_READY' | 'SANDBOX_NOTREADY';
  /** nanoseconds since the epoch, decimal */
  createdAt: string;
  hostname: string;
  logDirectory: string;
  ip: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  runtimeHandler: string;
}

export interface MountRecord {
  containerPath: string;
  hostPath: string;
  readonly: boolean;
}

export interface ContainerRecord {
  id: string;
  podSandboxId: string;
  name: string;
  attempt: number;
  image: string;
  imageRef: string;
  /** command and args joined: what runs */
  argv: string[];
  workingDir: string;
  envs: { key: string; value: string }[];
  mounts: MountRecord[];
  /** the config's stdin, stdinOnce and tty (absent in records of older agents) */
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  /** absolute (the sandbox's log directory joined with the config's logPath), '' when none */
  logPath: string;
  /** the config's logPath as given (relative to the sandbox's log directory) */
  configLogPath: string;
  state: 'CONTAINER_CREATED' | 'CONTAINER_RUNNING' | 'CONTAINER_EXITED' | 'CONTAINER_UNKNOWN';
  createdAt: string;
  startedAt: string;
  finishedAt: string;
  exitCode: number;
  reason: string;
  message: string;
  /** the shim's pid, and the command's (the leader of its process group); 0 before start */
  shimPid: number;
  pid: number;
}

/** nanoseconds since the epoch, as CRI timestamps are written */
export function nowNs(): string {
  return (BigInt(Date.now()) * 1_000_000n).toString();
}

/** a 64-hex-digit id, as containerd's */
export function newId(): string {
  return crypto.randomBytes(32).toString('hex');
}

/** `mode` for files other users must not read (a container's spec holds its environment) */
export function writeJsonFile(file: string, value: unknown, mode = 0o644): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(value, null, 1), { mode });
  fs.renameSync(`${file}.tmp`, file);
}

export function readJsonFile<T>(file: string): T | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** every record file `<dir>/<id>/<name>` */
export function loadRecords<T>(dir: string, name: string): T[] {
  if (!fs.existsSync(dir)) return [];
  const records: T[] = [];
  for (const id of fs.readdirSync(dir)) {
    const record = readJsonFile<T>(path.join(dir, id, name));
    if (record !== undefined) records.push(record);
  }
  return records;
}

/**
 * whether a process with this pid exists and is not a zombie (an exited process its parent has not
 * reaped, as the shims become when reparented to an init that does not reap); after pid reuse it
 * may be another process
 */
export function processAlive(pid: number): boolean {
  if (pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    // /proc/<pid>/stat: `pid (comm) state ...`; comm may hold spaces and parentheses
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

export function notFound(call: string, what: string): CriError {
  return new CriError(`RuntimeService/${call}`, GrpcStatus.NOT_FOUND, what);
}
