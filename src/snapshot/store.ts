import { EMPTY_SNAPSHOT, type QueueSizesSnapshot, type Snapshot, type WalletsSnapshot } from './types.js';

/** Holds the current snapshot; each change replaces the whole object. `onQueueSizes` hears every new queue-size part. */
export interface SnapshotStore {
  current(): Snapshot;
  replaceQueueSizes(queueSizes: QueueSizesSnapshot): void;
  replaceWallets(wallets: WalletsSnapshot): void;
}

export function createSnapshotStore(
  options: { readonly initial?: Snapshot; readonly onQueueSizes?: (queueSizes: QueueSizesSnapshot) => void } = {},
): SnapshotStore {
  const initial = options.initial ?? EMPTY_SNAPSHOT;
  let snapshot = initial;
  const replace = (next: Snapshot): void => {
    snapshot = Object.freeze(next);
  };
  return {
    current: () => snapshot,
    replaceQueueSizes(queueSizes) {
      replace({ ...snapshot, queueSizes: Object.freeze(queueSizes) });
      options.onQueueSizes?.(queueSizes);
    },
    replaceWallets: (wallets) => replace({ ...snapshot, wallets: Object.freeze(wallets) }),
  };
}
