import type { Config } from '../../domain/config.js';
import { jettonsSnapshotFor, type JettonsSnapshot } from '../../domain/jettons.js';
import { firstUrlBound } from '../../upstream/kinds.js';
import { perObject } from '../../domain/per-object.js';
import { createJettonSeriesRenderer, type JettonSeriesInput } from './series.js';
import { createBatchSize, type BatchSize } from '../../accounts/batches.js';
import { ownersByJetton, pollJettons } from './poll.js';
import { walletConcurrency } from '../wallets/poll.js';
import { createJettonWalletsHandler } from './v3.js';
import { addressBookEntry } from '../../accounts/address-book.js';
import { readIfPresent, setAside, writeAtomically } from '../../snapshot/atomic-file.js';
import { ageSeconds } from '../../snapshot/freshness.js';
import { decodeJettons, encodeJettons, jettonsFileOf } from './file.js';
import { persistFailureReason } from '../../snapshot/persist.js';
import { pollJob, type Feature, type FeatureContext } from '../feature.js';

/**
 * Jetton balances of the watched wallets: a poll on the wallet schedule (below the wallet
 * cycle in each upstream's budget, above read-through), the balances kept in their own
 * part of the snapshot (`<name>.jettons.json`), exported as ton_jetton_* series and served
 * as `GET /api/v3/jetton/wallets`. Nothing runs without `jettons` and a wallet watching one.
 */
export function createJettonsFeature(ctx: FeatureContext): Feature {
  const { now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  let snapshot: JettonsSnapshot | null = null;
  let loading = false;
  let loaded: Promise<void> = Promise.resolve();
  let writing: Promise<void> = Promise.resolve();
  let stopped = false;
  const watchedJettons = perObject((config: Config) => ownersByJetton(config).size > 0);
  /** Owners per request, learnt per configuration (like the wallet batches). */
  const batchSizes = perObject((config: Config): BatchSize => {
    const bound = firstUrlBound(config.upstreams);
    const max = Math.min(config.walletBatchSize, 1000);
    return createBatchSize(max, now, bound === undefined ? undefined : (count) => bound.jettonWalletsLine(count));
  });
  const handler = createJettonWalletsHandler(ctx.wallOffset);
  const renderSeries = createJettonSeriesRenderer();
  /** The renderer's input: the same object while neither the snapshot nor the config changed. */
  let input: JettonSeriesInput | null = null;
  const seriesInput = (): JettonSeriesInput => {
    const { config } = current();
    const shown = view();
    if (
      input?.snapshot !== shown ||
      input.jettons !== config.jettons ||
      input.watchlist !== config.watchlist ||
      input.maxAgeSeconds !== config.snapshot.maxAgeSeconds
    ) {
      input = {
        snapshot: shown,
        jettons: config.jettons,
        watchJettons: config.watchJettons,
        watchlist: config.watchlist,
        maxAgeSeconds: config.snapshot.maxAgeSeconds,
      };
    }
    return input;
  };

  /** What is served and exported: the snapshot's records of the configured masters only. */
  let viewed: { snapshot: JettonsSnapshot | null; jettons: Config['jettons']; view: JettonsSnapshot | null } | null = null;
  const view = (): JettonsSnapshot | null => {
    const { jettons } = current().config;
    if (viewed?.snapshot !== snapshot || viewed.jettons !== jettons) viewed = { snapshot, jettons, view: jettonsSnapshotFor(snapshot, jettons) };
    return viewed.view;
  };

  const fileOf = (): string => jettonsFileOf(current().config.snapshot.file);
  const persist = (next: JettonsSnapshot): void => {
    const file = fileOf();
    writing = writing
      .then(() => writeAtomically(file, encodeJettons(next, ctx.wallOffset())))
      .then(
        () => {
          ctx.self.persist.persisted(now() + ctx.wallOffset());
          ctx.episodes.ok(file, { file }, 'jetton balances persisted again');
        },
        (err: unknown) => {
          const reason = persistFailureReason(err);
          ctx.self.persist.failed(reason);
          // A failing disk fails every cycle's write: said when it starts, every 10 minutes, and when it ends.
          ctx.episodes.failed(file, { err, file, reason }, 'could not persist the jetton balances; the previous file stays');
        },
      );
  };

  async function loadPersisted(): Promise<void> {
    const file = fileOf();
    const read = await readIfPresent(file);
    if (read.kind === 'absent') return;
    if (read.kind === 'unreadable') {
      logger.error({ err: read.error, file }, 'could not read the jetton snapshot file; starting without it');
      return;
    }
    const offset = ctx.wallOffset();
    const decoded = decodeJettons(read.bytes, (wall) => Math.min(wall - offset, now()));
    if (!decoded.ok) {
      const movedTo = await setAside(file, now()).catch(() => null);
      logger.error({ file, movedTo, problem: decoded.problem }, 'jetton snapshot file is broken or foreign; moved aside, starting without it');
      return;
    }
    if (snapshot === null) snapshot = decoded.snapshot;
    ctx.logger.info(
      { jettons: decoded.snapshot.jettons.size, ageSeconds: ageSeconds(decoded.snapshot.fetchedAt, now()) },
      'loaded the persisted snapshot (jettons)',
    );
  }

  return {
    name: 'jettons',
    jobs: ({ config, client }) =>
      !watchedJettons(config)
        ? []
        : [
            pollJob(
              ctx,
              'jetton_wallets',
              config.schedule.wallets,
              {
                // In a cluster, the replica that leads polls the jettons.
                due: async () => {
                  await loaded;
                  return ctx.cluster.leads();
                },
              },
              (signal) =>
                pollJettons(
                  {
                    client,
                    logger,
                    config,
                    batchSize: batchSizes(config),
                    concurrency: walletConcurrency(config.upstreams[0]?.rps ?? 1),
                    previous: () => snapshot,
                    publish(next) {
                      snapshot = next;
                      persist(next);
                    },
                  },
                  signal,
                ),
            ),
          ],
    start() {
      if (!watchedJettons(current().config)) return;
      loading = true;
      loaded = loadPersisted()
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not load the persisted jetton balances; starting without them'))
        .finally(() => (loading = false));
    },
    async stop() {
      stopped = true;
      await writing;
    },
    series: (at) => (stopped || !ctx.cluster.leads() ? Buffer.alloc(0) : renderSeries(seriesInput, at)),
    polled: {
      query: 'jetton_wallets',
      active: () => watchedJettons(current().config),
      fetchedAt: () => snapshot?.fetchedAt,
    },
    serves: {
      status: () => {
        const { config } = current();
        return config.jettons.length === 0 ? {} : { jettons: { settings: config.jettons, watchJettons: config.watchJettons, snapshot: view() } };
      },
      routes: [
        [
          '/api/v3/jetton/wallets',
          {
            endpoint: 'jetton_wallets',
            handle: (request) => {
              const { config, serve, scheduler } = current();
              return handler.serve(view(), {
                method: request.method,
                query: request.query,
                now: now(),
                maxAgeSeconds: config.snapshot.maxAgeSeconds,
                nextPollDueAt: scheduler.nextRunAt('jetton_wallets'),
                testnet: config.testnet,
                watched: serve.watched,
                jettons: config.jettons,
                ownerBook: (raw) => addressBookEntry(ctx.store.current().wallets?.wallets.get(raw), raw, config.testnet),
                loading,
              });
            },
          },
        ],
      ],
    },
  };
}
