import type { KeyValue, Revision } from '../store';

/** One operation for the writer queue. Every dialect's writer applies these inside one transaction. */
export type WriteOp =
  | { kind: 'create'; key: string; value: string }
  | { kind: 'update'; key: string; value: string; expectedRevision?: Revision }
  | { kind: 'delete'; key: string; expectedRevision?: Revision }
  /** one compaction batch: inspect at most `maxRows` log ids after the compaction cursor, up to `revision` */
  | { kind: 'compact'; revision: Revision; maxRows: number }
  /** give at most `pages` free pages back to the file system */
  | { kind: 'vacuum'; pages: number }
  /** rewrite one meta row with its own value: a real commit that changes nothing (can we write?) */
  | { kind: 'probe' };

export interface CompactStep {
  /** log rows removed by this batch */
  removed: number;
  /** true when every log id up to the compaction revision has been processed */
  done: boolean;
}

export interface VacuumStep {
  /** free pages still in the file */
  freePages: number;
}

export type WriteResult = KeyValue | CompactStep | VacuumStep | undefined;
