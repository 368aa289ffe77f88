import { addressBookEntry } from '../../accounts/address-book.js';
import { createInterning, type Interning } from '../../domain/interning.js';
import { watchlistKeys } from '../../config/watchlist.js';
import { createStringPool } from './string-pool.js';
import { pollJob } from '../../schedule/poll-job.js';
import { notReadyReason } from '../../snapshot/freshness.js';
import type { ScheduledJob } from '../../schedule/scheduler.js';
import { gainedSince, notFetchedSince, stillOwnedSince, walletsToPoll, type LastTick } from './to-poll.js';
import type { Feature, FeatureContext, FeatureParts, GenerationParts } from '../feature.js';
import { WALLETS_CONFIG } from './config.js';
import { WALLET_METRICS } from './families.js';
import { createWalletsHeld, type WalletsHeld } from './held.js';
import { createWalletsPersisted, type WalletsPersisted } from './persisted.js';
import { pollWallets } from './poll.js';
import { walletConcurrency } from '../../accounts/batches.js';
import { createWalletSeriesRenderer } from './series.js';
import { createWalletTable, walletsSection, type WalletTableSources } from './status.js';
import { walletsRoutes } from './routes.js';

const QUERY = 'wallets';

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
  /** One copy of what repeats across the states kept (polled, received from other replicas, read from the file), for the life of the daemon. */
  const interning = createInterning();
  /**
   * Records read from other replicas or the file keep the watched wallet's raw string and this interning's values.
   * They mostly come in watchlist order (the file is written in it, a replica shares its share in it): the wallet
   * after the last one found is tried before the index.
   */
  let next = 0;
  const watchedKey = (raw: string): string | undefined => {
    const { watchlist } = current().config;
    const at = watchlist[next]?.raw === raw ? next : watchlistKeys(watchlist).get(raw);
    if (at === undefined) return undefined;
    next = at + 1;
    return watchlist[at]?.raw;
  };
  // Received records go on arriving for as long as the replica runs; a file load is done once.
  const held = createWalletsHeld(ctx, createStringPool(interning, watchedKey));
  const persisted = createWalletsPersisted(ctx, held, () => createStringPool(interning, watchedKey));
  const series = createWalletSeriesRenderer({
    watchlist: () => ctx.cluster.owned(current().config.watchlist),
    maxAgeSeconds: () => current().config.snapshot.maxAgeSeconds,
    testnet: () => current().config.testnet,
  });
  const table = createWalletTable();
  const tableSources = (at: number): WalletTableSources => {
    const { config } = current();
    const columns = ctx.provided.all('walletColumns');
    return { now: at, snapshot: held.current(), watchlist: config.watchlist, maxAgeSeconds: config.snapshot.maxAgeSeconds, testnet: config.testnet, columns };
  };
  /** When the last run of the schedule (not one asked between ticks) began, on the process clock. */
  const ticks: LastTick = { startedAt: null };

  return {
    jobs: (generation) => (generation.config.watchlist.length === 0 ? [] : [walletsJob(ctx, generation, { held, persisted, interning, ticks })]),
    routes: walletsRoutes({ ctx, held: () => held.current(), loading: () => persisted.loading(), table, tableSources }),
    series: [{ kind: 'gzip', parts: (at) => series.render(held.current(), at) }],
    polls: [{ query: QUERY, active: () => current().config.watchlist.length > 0, fetchedAt: () => held.current()?.fetchedAt, alwaysExported: true }],
    readiness: () => {
      if (current().config.watchlist.length === 0) return [];
      const reason = notReadyReason(QUERY, held.current()?.fetchedAt, now(), current().config.snapshot.maxAgeSeconds, persisted.loading());
      return reason === null ? [] : [reason];
    },
    provides: {
      addressBook: (raw) => addressBookEntry(held.current()?.wallets.get(raw), raw, current().config.testnet),
      statusSections: [walletsSection(table, tableSources)],
    },
    load: () => persisted.load(),
    start() {
      // In a cluster, wallets this replica has just taken over are polled at once, not at the next tick (walletsToPoll).
      ctx.cluster.onGained(() => current().scheduler.runNow(QUERY));
    },
    async stop() {
      held.stop();
      await persisted.stop();
    },
  };
}

/** The wallet poll of one configuration: this replica's share of the watchlist, once the persisted file is in. */
function walletsJob(
  ctx: FeatureContext,
  { config, client, batchSize }: GenerationParts,
  parts: { held: WalletsHeld; persisted: WalletsPersisted; interning: Interning; ticks: LastTick },
): ScheduledJob {
  const { now } = ctx;
  const { held, persisted } = parts;
  const logger = ctx.logger.child({ module: 'poll' });
  // In a cluster, a replica that owns no wallet (yet) has nothing to poll.
  const due = async (signal: AbortSignal): Promise<boolean> => ctx.cluster.owned(config.watchlist).length > 0 && (await persisted.loadedFirst(signal));
  return pollJob(ctx, QUERY, config.schedule.wallets, { due }, async (signal, reason) => {
    const owned = ctx.cluster.owned(config.watchlist);
    const watchlist = walletsToPoll(owned, ctx.cluster.enabled ? reason : 'tick', parts.ticks, () => held.current(), now());
    if (watchlist.length === 0) return { ok: true };
    const started = now();
    const outcome = await pollWallets(
      {
        client,
        logger,
        now,
        watchlist,
        batchSize,
        // The primary upstream's budget: failover is the exception.
        concurrency: walletConcurrency(config.upstreams[0]?.rps ?? 1),
        previous: () => held.current(),
        async publish(snapshot) {
          await held.polled(snapshot);
          persisted.save(held.current() ?? snapshot);
        },
        // A record still served (fresh) holds back an older state of its wallet.
        heldFrom: () => now() - config.snapshot.maxAgeSeconds * 1000,
        stale: (upstream) => ctx.metrics.staleAnswer(upstream, QUERY),
        episodes: ctx.episodes,
        interning: parts.interning,
        ...(ctx.cluster.enabled && {
          stillOwned: stillOwnedSince(owned, () => ctx.cluster.owned(config.watchlist)),
          gained: gainedSince(
            config.watchlist,
            owned,
            () => ctx.cluster.owned(config.watchlist),
            notFetchedSince(parts.ticks.startedAt, () => held.current()),
          ),
        }),
      },
      signal,
    );
    // A takeover's end, for whoever watches a member leave (the cluster bench times it).
    if (watchlist !== owned)
      logger.info({ wallets: watchlist.length, owned: owned.length, ok: outcome.ok, seconds: (now() - started) / 1000 }, 'polled the wallets taken over');
    return outcome;
  });
}
