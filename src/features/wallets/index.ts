import { addressBookEntry } from '../../accounts/address-book.js';
import { createInterning } from '../../domain/interning.js';
import { pollJob } from '../../schedule/poll-job.js';
import { ageSeconds, notReadyReason } from '../../snapshot/freshness.js';
import { createPersistedPart, partFile } from '../../snapshot/persisted-file.js';
import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { WALLETS_CONFIG } from './config.js';
import { WALLET_METRICS } from './families.js';
import { WALLETS_FILE } from './file.js';
import { createWalletsHeld } from './held.js';
import { pollWallets } from './poll.js';
import { walletConcurrency } from '../../accounts/batches.js';
import { createWalletSeriesRenderer } from './series.js';
import { createWalletTable, walletsSection } from './status.js';
import { walletsRoutes } from './routes.js';

const QUERY = 'wallets';
/** How long after the persisted wallets are in start-up counts as over (FeatureContext.startedUp). */
const STARTED_UP_AFTER_MS = 1_000;

/**
 * The watched wallets' states (toncenter's walletStates, or a liteserver's account states):
 * polled in batches on `schedule.wallets`, persisted in `<name>.wallets.json` (read once the
 * server listens; the poll waits for it, so its first cycle builds on what was persisted),
 * exported as ton_wallet_*, served as walletStates, shown on the status page. In a cluster,
 * each replica polls and exports its share, and every replica holds and serves them all.
 */
export const wallets: Feature = {
  name: 'wallets',
  config: WALLETS_CONFIG,
  families: Object.values(WALLET_METRICS),
  create: (ctx) => createWallets(ctx),
};

function createWallets(ctx: FeatureContext): FeatureParts {
  const { now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  /** One copy of what repeats across the states kept, for the life of the daemon. */
  const interning = createInterning();
  const held = createWalletsHeld(ctx);
  const file = createPersistedPart(() => partFile(current().config.snapshot.file, 'wallets'), {
    codec: WALLETS_FILE,
    logger: ctx.logger.child({ module: 'snapshot' }),
    now,
    wallOffset: ctx.wallOffset,
    observer: ctx.persisted,
  });
  /** True while the persisted wallets file is being read at start. */
  let loading = false;
  let loaded: Promise<void> = Promise.resolve();
  let stopped = false;
  /** Stops a read of the persisted wallets file still going on at shutdown. */
  const loadAborter = new AbortController();
  const series = createWalletSeriesRenderer({
    watchlist: () => ctx.cluster.owned(current().config.watchlist),
    maxAgeSeconds: () => current().config.snapshot.maxAgeSeconds,
    testnet: () => current().config.testnet,
  });
  const table = createWalletTable();
  const tableSources = (at: number) => {
    const { config } = current();
    const columns = ctx.provided.all('walletColumns');
    return { now: at, snapshot: held.current(), watchlist: config.watchlist, maxAgeSeconds: config.snapshot.maxAgeSeconds, testnet: config.testnet, columns };
  };

  async function loadPersisted(): Promise<void> {
    try {
      const loadedWallets = await file.load(loadAborter.signal);
      // A poll cannot have published wallets first (it waits for this), but a cluster may have.
      if (loadedWallets !== null && held.current() === null) {
        held.replace(loadedWallets);
        ctx.logger.info(
          { wallets: loadedWallets.wallets.size, ageSeconds: ageSeconds(loadedWallets.fetchedAt, now()) },
          'loaded the persisted snapshot (wallet states)',
        );
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

  return {
    jobs: ({ config, client, batchSize }) =>
      config.watchlist.length === 0
        ? []
        : [
            // In a cluster, a replica that owns no wallet (yet) has nothing to poll.
            pollJob(
              ctx,
              QUERY,
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
                    previous: () => held.current(),
                    publish(snapshot) {
                      held.polled(snapshot);
                      void file.save(held.current() ?? snapshot);
                    },
                    // A record still served (fresh) holds back an older state of its wallet.
                    heldFrom: () => now() - config.snapshot.maxAgeSeconds * 1000,
                    stale: (upstream) => ctx.metrics.staleAnswer(upstream, QUERY),
                    episodes: ctx.episodes,
                    interning,
                  },
                  signal,
                ),
            ),
          ],
    routes: walletsRoutes({ ctx, held: () => held.current(), loading: () => loading, table, tableSources }),
    series: [{ kind: 'gzip', parts: (at) => series.render(held.current(), at) }],
    polls: [{ query: QUERY, active: () => current().config.watchlist.length > 0, fetchedAt: () => held.current()?.fetchedAt, alwaysExported: true }],
    readiness: () => {
      if (current().config.watchlist.length === 0) return [];
      const reason = notReadyReason(QUERY, held.current()?.fetchedAt, now(), current().config.snapshot.maxAgeSeconds, loading);
      return reason === null ? [] : [reason];
    },
    provides: {
      addressBook: (raw) => addressBookEntry(held.current()?.wallets.get(raw), raw, current().config.testnet),
      statusSections: [walletsSection(table, tableSources)],
    },
    load() {
      // Not awaited: the file is read while the server starts listening, and decoded while it answers.
      loading = true;
      loaded = loadPersisted().finally(() => {
        loading = false;
      });
      void loaded.then(() =>
        setTimeout(() => {
          if (!stopped) ctx.startedUp?.();
        }, STARTED_UP_AFTER_MS).unref(),
      );
      return Promise.resolve();
    },
    start() {
      // In a cluster, wallets this replica has just taken over are polled at once, not at the next tick.
      ctx.cluster.onGained(() => current().scheduler.runNow(QUERY));
    },
    async stop() {
      stopped = true;
      loadAborter.abort();
      held.stop();
      const last = held.current();
      if (last !== null && !loading) await file.save(last);
    },
  };
}
