import { createInterning } from '../../domain/interning.js';
import type { QueryName } from '../../domain/queries.js';
import { mergeWallets } from './merge.js';
import { pollWallets, walletConcurrency } from './poll.js';
import type { WalletsSnapshot } from '../../snapshot/types.js';
import { ageSeconds } from '../../snapshot/freshness.js';
import { pollJob, type Feature, type FeatureContext } from '../feature.js';

const LOADING_WALLETS: readonly QueryName[] = ['wallets'];
const NOTHING_LOADING: readonly QueryName[] = [];

/** How long after the persisted wallets are in start-up counts as over (DaemonDeps.startedUp). */
const STARTED_UP_AFTER_MS = 1_000;

/**
 * The wallet poll: its job, and the persisted wallets file (megabytes), read once the
 * server listens; the poll waits for it, so its first cycle builds on what was persisted.
 */
export function createWalletsFeature(ctx: FeatureContext): Feature {
  const { store, now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  /** One copy of what repeats across the states kept, for the life of the daemon. */
  const interning = createInterning();
  /** True while the persisted wallets file is being read at start. */
  let loading = false;
  let loaded: Promise<void> = Promise.resolve();
  let stopped = false;
  /** Stops a read of the persisted wallets file still going on at shutdown. */
  const loadAborter = new AbortController();
  const startedUp = (): void => {
    if (!stopped) ctx.startedUp?.();
  };

  async function loadPersisted(): Promise<void> {
    try {
      const wallets = await current().persister.loadWallets(loadAborter.signal);
      // A poll cannot have published wallets first (it waits for this), but a reload may have moved the file.
      if (wallets && store.current().wallets === null) {
        store.replaceWallets(wallets);
        ctx.logger.info({ wallets: wallets.wallets.size, ageSeconds: ageSeconds(wallets.fetchedAt, now()) }, 'loaded the persisted snapshot (wallet states)');
      }
    } catch (err) {
      ctx.logger.error({ err }, 'could not load the persisted wallet states; starting without them');
    }
  }

  /** Waits for the persisted wallets file to be read (a poll builds on it); false when stopped meanwhile. */
  async function loadedFirst(signal: AbortSignal): Promise<boolean> {
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
  }

  /**
   * A cycle's snapshot in force: in one process, as it is; in a cluster, this replica's
   * share put into the snapshot the others' shares reach, and handed to them.
   */
  function published(polled: WalletsSnapshot): void {
    if (!ctx.cluster.enabled) {
      store.replaceWallets(polled);
      return;
    }
    const merged = mergeWallets(store.current().wallets, polled.wallets, current().config.watchlist, () => true);
    if (merged !== null) store.replaceWallets(merged);
    ctx.cluster.shareWallets(polled.wallets.values());
  }

  return {
    name: 'wallets',
    jobs: ({ config, client, batchSize, persister }) =>
      config.watchlist.length === 0
        ? []
        : [
            // In a cluster, a replica that owns no wallet (yet) has nothing to poll.
            pollJob(
              ctx,
              'wallets',
              config.schedule.wallets,
              { due: async (signal) => ctx.cluster.owned(config.watchlist).length > 0 && (await loadedFirst(signal)) },
              (signal) =>
                pollWallets(
                  {
                    client,
                    logger,
                    now,
                    watchlist: ctx.cluster.owned(config.watchlist),
                    batchSize,
                    // The primary upstream's budget: failover is the exception.
                    concurrency: walletConcurrency(config.upstreams[0]?.rps ?? 1),
                    previous: () => store.current().wallets,
                    publish(snapshot) {
                      published(snapshot);
                      void persister.save(store.current());
                    },
                    // A record still served (fresh) holds back an older state of its wallet.
                    heldFrom: () => now() - config.snapshot.maxAgeSeconds * 1000,
                    stale: (upstream) => ctx.self.staleAnswer(upstream, 'wallets'),
                    episodes: ctx.episodes,
                    interning,
                  },
                  signal,
                ),
            ),
          ],
    serves: { loading: () => (loading ? LOADING_WALLETS : NOTHING_LOADING) },
    load() {
      // Not awaited: the file is read while the server starts listening, and decoded while it answers.
      loading = true;
      loaded = loadPersisted().finally(() => {
        loading = false;
      });
      void loaded.then(() => setTimeout(startedUp, STARTED_UP_AFTER_MS).unref());
      return Promise.resolve();
    },
    start() {
      // In a cluster, wallets this replica has just taken over are polled at once, not at the next tick.
      ctx.cluster.onGained(() => current().scheduler.runNow('wallets'));
    },
    stop() {
      stopped = true;
      loadAborter.abort();
    },
  };
}
