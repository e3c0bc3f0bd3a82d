/**
 * Eviction thresholds from --eviction-hard, --eviction-soft, --eviction-soft-grace-period and
 * --eviction-minimum-reclaim, checked and combined as kubelet 1.20's ParseThresholdConfig does,
 * with its messages. The eviction manager reads the result.
 */
import { parseDuration } from '../../options/duration';
import { parseQuantity } from '../../api/kinds/core/quantity';

/** the signals kubelet 1.20 knows on Linux */
export const EVICTION_SIGNALS = Object.freeze([
  'memory.available',
  'allocatableMemory.available',
  'nodefs.available',
  'nodefs.inodesFree',
  'imagefs.available',
  'imagefs.inodesFree',
  'pid.available',
] as const);
export type EvictionSignal = (typeof EVICTION_SIGNALS)[number];

/** an amount (bytes, inodes, pids) or a fraction of capacity (0..1) */
export type ThresholdValue = { quantity: number; text: string } | { percentage: number };

export interface EvictionThreshold {
  readonly signal: EvictionSignal;
  /** every signal of 1.20 compares with "less than" */
  readonly operator: 'LessThan';
  readonly value: ThresholdValue;
  /** 0 for hard thresholds */
  readonly gracePeriodMs: number;
  readonly minReclaim?: ThresholdValue;
}

const QUANTITY_ERROR = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

function checkSignal(signal: string): EvictionSignal {
  if (!(EVICTION_SIGNALS as readonly string[]).includes(signal)) throw new Error(`unsupported eviction signal ${signal}`);
  return signal as EvictionSignal;
}

function percentage(text: string): number {
  const body = text.slice(0, -1);
  const n = Number(body);
  if (body.trim() === '' || !Number.isFinite(n)) throw new Error(`strconv.ParseFloat: parsing "${body}": invalid syntax`);
  return n / 100;
}

function quantity(text: string): number {
  const n = parseQuantity(text);
  if (n === undefined) throw new Error(QUANTITY_ERROR);
  return n;
}

/** one `signal: value` statement; undefined for 0% and 100%, which kubelet ignores */
function thresholdStatement(signal: string, text: string): EvictionThreshold | undefined {
  const s = checkSignal(signal);
  if (text.endsWith('%')) {
    if (text === '0%' || text === '100%') return undefined;
    const p = percentage(text);
    if (p < 0) throw new Error(`eviction percentage threshold ${s} must be >= 0%: ${text}`);
    if (p > 1) throw new Error(`eviction percentage threshold ${s} must be <= 100%: ${text}`);
    return { signal: s, operator: 'LessThan', value: { percentage: p }, gracePeriodMs: 0 };
  }
  const q = quantity(text);
  if (q <= 0) throw new Error(`eviction threshold ${s} must be positive: ${text}`);
  return { signal: s, operator: 'LessThan', value: { quantity: q, text }, gracePeriodMs: 0 };
}

function statements(map: Readonly<Record<string, string>>): EvictionThreshold[] {
  return Object.entries(map)
    .map(([signal, text]) => thresholdStatement(signal, text))
    .filter((t): t is EvictionThreshold => t !== undefined);
}

export interface EvictionSettings {
  hard: Readonly<Record<string, string>>;
  soft: Readonly<Record<string, string>>;
  softGracePeriod: Readonly<Record<string, string>>;
  minimumReclaim: Readonly<Record<string, string>>;
}

/** every threshold, hard ones first; throws Error with kubelet's message */
export function parseThresholds(settings: EvictionSettings): EvictionThreshold[] {
  const hard = statements(settings.hard);
  const soft = statements(settings.soft);
  const grace = new Map<string, number>();
  for (const [signal, text] of Object.entries(settings.softGracePeriod)) {
    const s = checkSignal(signal);
    const ms = parseDuration(text);
    if (ms < 0) throw new Error(`invalid eviction grace period specified: ${text}, must be a positive value`);
    grace.set(s, ms);
  }
  const reclaim = new Map<string, ThresholdValue>();
  for (const [signal, text] of Object.entries(settings.minimumReclaim)) {
    const s = checkSignal(signal);
    if (text.endsWith('%')) {
      const p = percentage(text);
      if (p <= 0) throw new Error(`eviction percentage minimum reclaim ${s} must be positive: ${text}`);
      if (p > 1) throw new Error(`eviction percentage minimum reclaim ${s} must be less than 100%: ${text}`);
      reclaim.set(s, { percentage: p });
    } else {
      const q = quantity(text);
      if (q < 0) throw new Error(`negative eviction minimum reclaim specified for ${s}`);
      reclaim.set(s, { quantity: q, text });
    }
  }
  const softWithGrace = soft.map((t) => {
    const period = grace.get(t.signal);
    if (period === undefined) throw new Error(`grace period must be specified for the soft eviction threshold ${t.signal}`);
    return { ...t, gracePeriodMs: period };
  });
  return [...hard, ...softWithGrace].map((t) => Object.freeze(reclaim.has(t.signal) ? { ...t, minReclaim: reclaim.get(t.signal) } : t));
}
