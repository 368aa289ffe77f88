import { ageSeconds } from '../../snapshot/freshness.js';
import { createPersistedPart, partFile } from '../../snapshot/persisted-file.js';
import type { FeatureContext } from '../feature.js';
import { walletsFile } from './file.js';
import type { StringPool } from './string-pool.js';
import type { WalletsHeld } from './held.js';
import type { WalletsSnapshot } from './types.js';

/**
 * A stop's write of the wallets file is given up past this (the previous file stays): a stop
 * must end within 10 s (main.ts), and the rest of it (fsync, the server's drain) needs the
 * remainder. At 1,000,000 wallets on shared cores the write alone can take longer.
 */
const STOP_WRITE_MS = 7_000;
/** How long after the persisted wallets are in start-up counts as over (FeatureContext.startedUp). */
const STARTED_UP_AFTER_MS = 1_000;
/**
 * The most of the replica's time writing the file may take. At a million wallets a write
 * (241.7 MB) takes seconds of CPU, every cycle (each record's fetch time moves); the next
 * then waits until ten times that has passed, and writes the newest snapshot.
 * What a restart loses is freshness, never correctness: each record keeps its fetch time.
 */
const WRITE_SHARE = 0.1;

/**
 * The wallets' file (`<snapshot>.wallets.json`): read at start while the server already
 * answers (walletStates says it is loading meanwhile), written after each cycle (at most a
 * tenth of the time: WRITE_SHARE) and at shutdown.
 */
export interface WalletsPersisted {
  /** Starts reading the file; resolves at once. */
  load(): Promise<void>;
  /** True while the file is being read at start. */
  loading(): boolean;
  /** Waits for the file to be read (a poll builds on it); false when `signal` aborted meanwhile. */
  loadedFirst(signal: AbortSignal): Promise<boolean>;
  save(snapshot: WalletsSnapshot): void;
  /** Stops a read still going on, and writes what is held. */
  stop(): Promise<void>;
}

export function createWalletsPersisted(ctx: FeatureContext, held: WalletsHeld, newPool?: () => StringPool): WalletsPersisted {
  const file = createPersistedPart(() => partFile(ctx.current().config.snapshot.file, 'wallets'), {
    codec: walletsFile(newPool),
    logger: ctx.logger.child({ module: 'snapshot' }),
    now: ctx.now,
    wallOffset: ctx.wallOffset,
    observer: ctx.persisted,
    busyShare: WRITE_SHARE,
  });
  let loading = false;
  let loaded: Promise<void> = Promise.resolve();
  let stopped = false;
  const loadAborter = new AbortController();

  async function read(): Promise<void> {
    try {
      const snapshot = await file.load(loadAborter.signal);
      // A poll cannot have published wallets first (it waits for this), but a cluster may have.
      if (snapshot !== null && held.current() === null) {
        held.replace(snapshot);
        const ageOfIt = ageSeconds(snapshot.fetchedAt, ctx.now());
        ctx.logger.info({ wallets: snapshot.wallets.size, ageSeconds: ageOfIt }, 'loaded the persisted snapshot (wallet states)');
      }
    } catch (err) {
      ctx.logger.error({ err }, 'could not load the persisted wallet states; starting without them');
    }
  }

  return {
    load() {
      // Not awaited: the file is read while the server starts listening, and decoded while it answers.
      loading = true;
      loaded = read().finally(() => {
        loading = false;
      });
      void loaded.then(() =>
        setTimeout(() => {
          if (!stopped) ctx.startedUp?.();
        }, STARTED_UP_AFTER_MS).unref(),
      );
      return Promise.resolve();
    },
    loading: () => loading,
    async loadedFirst(signal) {
      if (loading) {
        await new Promise<void>((resolve) => {
          const onAbort = (): void => resolve();
          signal.addEventListener('abort', onAbort, { once: true });
          void loaded.then(() => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          });
        });
      }
      return !signal.aborted;
    },
    save: (snapshot) => void file.save(snapshot),
    async stop() {
      stopped = true;
      loadAborter.abort();
      const last = held.current();
      if (last !== null && !loading) await file.save(last, true, performance.now() + STOP_WRITE_MS);
    },
  };
}
