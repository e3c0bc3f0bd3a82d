import type { Test } from 'tap';
import { compactionContract } from './contract/compaction';
import type { MakeStore } from './contract/helpers';
import { listContract } from './contract/lists';
import { watchContract } from './contract/watches';
import { writeContract } from './contract/writes';

export type { MakeStore, StoreFixture } from './contract/helpers';

/**
 * The one behaviour suite every Store implementation runs (as kube's storage backends all run
 * k8s.io/apiserver/pkg/storage/testing). makeStore must give a fresh, empty store per call.
 */
export function runStoreContract(t: Test, makeStore: MakeStore): void {
  writeContract(t, makeStore);
  listContract(t, makeStore);
  watchContract(t, makeStore);
  compactionContract(t, makeStore);
}
