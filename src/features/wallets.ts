import { setImmediate as nextTurn } from 'node:timers/promises';
import { createInterning } from '../domain/interning.js';
import type { QueryName } from '../domain/queries.js';
import { mergeWallets } from '../cluster/merge.js';
import { pollWallets, walletConcurrency } from '../poll/wallets.js';
import type { WalletsLookup, WalletsSnapshot } from '../snapshot/types.js';
import { ageSeconds, freshForAll } from '../snapshot/freshness.js';
import { pollJob, type Feature, type FeatureContext } from './feature.js';

const LOADING_WALLETS: readonly QueryName[] = ['wallets'];
const NOTHING_LOADING: readonly QueryName[] = [];

/** How long after the persisted wallets are in the upstream client's code is loaded (clear of the start-up answers). */
const PREPARE_AFTER_MS = 1_000;

/**
 * The wallet poll: its job, and the persisted wallets file (megabytes), read once the
 * server listens; the poll waits for it, so its first cycle builds on what was persisted.
 * A restart does not ask the upstream again for states it has just persisted: the poll at
 * start is skipped when they cover the watchlist and stay fresh until the first tick.
 */
export function createWalletsFeature(ctx: FeatureContext): Feature {
  const { store, now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  /** One copy of what repeats across the states kept, for the life of the daemon. */
  const interning = createInterning();
  /** True while the persisted wallets file is being read at start. */
  let loading = false;
  /** Meanwhile, its wallets read one at a time as they are asked for (version 5 files), the file's lines found at the first ask. */
  let pending: (() => WalletsLookup | null) | null = null;
  let loaded: Promise<void> = Promise.resolve();
  /** Set by the first wallet poll after start: whether it could wait was decided then. */
  let startDecided = false;
  let stopped = false;
  /** Stops a read of the persisted wallets file still going on at shutdown. */
  const loadAborter = new AbortController();

  async function loadPersisted(): Promise<void> {
    try {
      const wallets = await current().persister.loadWallets({
        placeOf: (raw) => current().places.get(raw),
        offer: (index) => (pending = index),
        signal: loadAborter.signal,
      });
      // A poll cannot have published wallets first (it waits for this), but a reload may have moved the file.
      if (wallets && store.current().wallets === null) {
        store.replaceWallets(wallets);
        ctx.logger.info({ wallets: wallets.wallets.size, ageSeconds: ageSeconds(wallets.fetchedAt, now()) }, 'loaded the persisted snapshot (wallet states)');
      }
    } catch (err) {
      ctx.logger.error({ err }, 'could not load the persisted wallet states; starting without them');
    }
  }

  /**
   * Whether a wallet poll is due: always, but for the poll at start when the persisted
   * states cover the watchlist and stay fresh until the first tick.
   */
  async function due(signal: AbortSignal): Promise<boolean> {
    // A stop while the file loads does not wait for the load.
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
    if (signal.aborted) return false;
    if (startDecided) return true;
    startDecided = true;
    // Requests that waited for the wallets file go first.
    await nextTurn();
    const { config, scheduler } = current();
    const until = scheduler.nextRunAt('wallets') ?? now();
    if (!freshForAll(ctx.cluster.owned(config.watchlist), store.current().wallets?.wallets, until, config.snapshot.maxAgeSeconds)) return true;
    logger.info(
      { nextPollAt: new Date(until + ctx.wallOffset()).toISOString() },
      'persisted wallet states stay fresh until the first tick; not polled at start',
    );
    return false;
  }

  /**
   * Loads the code the first poll needs (undici, @ton/core) soon after start, not in that
   * poll while requests are being served; a poll due sooner loads it itself.
   */
  function prepareUpstream(): void {
    if (stopped) return;
    ctx.startedUp?.();
    current()
      .client.prepare()
      .then(
        () => ctx.logger.debug('loaded the upstream client ahead of the first poll'),
        (err: unknown) => ctx.logger.warn({ err }, 'could not load the upstream client ahead of the first poll'),
      );
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
              { runAtStart: () => true, due: async (signal) => ctx.cluster.owned(config.watchlist).length > 0 && (await due(signal)) },
              async (signal) => {
                // One turn of the event loop first: requests that waited for the wallets file are
                // answered before the poll loads the HTTP client and encodes its first batch.
                await nextTurn();
                return pollWallets(
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
                );
              },
            ),
          ],
    serves: { loading: () => (loading ? LOADING_WALLETS : NOTHING_LOADING), pendingWallets: () => (loading && pending !== null ? pending() : null) },
    load() {
      // Not awaited: the file is read while the server starts listening, and decoded while it answers.
      loading = true;
      loaded = loadPersisted().finally(() => {
        loading = false;
        pending = null;
      });
      void loaded.then(() => setTimeout(prepareUpstream, PREPARE_AFTER_MS).unref());
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
