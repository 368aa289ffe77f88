import { EMPTY_SNAPSHOT, type QueueSizesSnapshot, type Snapshot, type WalletsSnapshot } from './types.js';

/** Holds the current snapshot; each change replaces the whole object. */
export interface SnapshotStore {
  current(): Snapshot;
  replaceQueueSizes(queueSizes: QueueSizesSnapshot): void;
  replaceWallets(wallets: WalletsSnapshot): void;
}

export function createSnapshotStore(initial: Snapshot = EMPTY_SNAPSHOT): SnapshotStore {
  let snapshot = initial;
  const replace = (next: Snapshot): void => {
    snapshot = Object.freeze(next);
  };
  return {
    current: () => snapshot,
    replaceQueueSizes: (queueSizes) => replace({ ...snapshot, queueSizes: Object.freeze(queueSizes) }),
    replaceWallets: (wallets) => replace({ ...snapshot, wallets: Object.freeze(wallets) }),
  };
}
