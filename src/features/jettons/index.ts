import { createBatchSize, walletConcurrency, type BatchSize } from '../../accounts/batches.js';
import type { Config } from '../../domain/config.js';
import { jettonsSnapshotFor, type JettonsSnapshot } from '../../domain/jettons.js';
import { perObject } from '../../domain/per-object.js';
import { pollJob } from '../../schedule/poll-job.js';
import { ageSeconds } from '../../snapshot/freshness.js';
import { createPersistedPart, partFile } from '../../snapshot/persisted-file.js';
import { firstUrlBound } from '../../upstream/kinds.js';
import type { UpstreamClient } from '../../domain/upstream.js';
import type { ScheduledJob } from '../../schedule/scheduler.js';
import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { jettonColumns } from './columns.js';
import { JETTONS_CONFIG } from './config.js';
import { JETTON_METRICS } from './families.js';
import { JETTONS_FILE } from './file.js';
import { ownersByJetton, pollJettons, type JettonPollDeps } from './poll.js';
import { jettonsRoute } from './routes.js';
import { createJettonSeriesRenderer, type JettonSeriesInput } from './series.js';
import { createCompressor } from '../../metrics/gzip-members.js';

const QUERY = 'jetton_wallets';

/**
 * Jetton balances of the watched wallets: a poll on the wallet schedule (below the wallet
 * cycle in each upstream's budget, above read-through), the balances kept in their own
 * part of the snapshot (`<name>.jettons.json`), exported as ton_jetton_* series, served as
 * `GET /api/v3/jetton/wallets`, and a column per jetton in the status page's wallets table.
 * Nothing runs without `jettons` and a wallet watching one. In a cluster, the replica that
 * leads polls and exports them.
 */
export const jettons: Feature = {
  name: 'jettons',
  config: JETTONS_CONFIG,
  families: Object.values(JETTON_METRICS),
  create: (ctx) => createJettons(ctx),
};

function createJettons(ctx: FeatureContext): FeatureParts {
  const { now, current } = ctx;
  let snapshot: JettonsSnapshot | null = null;
  let loading = false;
  let loaded: Promise<void> = Promise.resolve();
  let stopped = false;
  const watchedJettons = perObject((config: Config) => ownersByJetton(config).size > 0);
  /** Owners per request, learnt per configuration (like the wallet batches). */
  const batchSizes = perObject((config: Config): BatchSize => {
    const bound = firstUrlBound(config.upstreams);
    const max = Math.min(config.walletBatchSize, 1000);
    return createBatchSize(max, now, bound === undefined ? undefined : (count) => bound.jettonWalletsLine(count));
  });
  const file = createPersistedPart(() => partFile(current().config.snapshot.file, 'jettons'), {
    codec: JETTONS_FILE,
    logger: ctx.logger.child({ module: 'snapshot' }),
    now,
    wallOffset: ctx.wallOffset,
    observer: ctx.persisted,
  });

  const { view, seriesInput } = jettonViews(current, () => snapshot);
  const renderSeries = createJettonSeriesRenderer(createCompressor());

  async function loadPersisted(): Promise<void> {
    const decoded = await file.load();
    if (decoded === null) return;
    if (snapshot === null) snapshot = decoded;
    ctx.logger.info({ jettons: decoded.jettons.size, ageSeconds: ageSeconds(decoded.fetchedAt, now()) }, 'loaded the persisted snapshot (jettons)');
  }

  return {
    jobs: ({ config, client }) =>
      !watchedJettons(config)
        ? []
        : [
            jettonsJob(ctx, config, client, {
              batchSize: batchSizes(config),
              loaded: () => loaded,
              previous: () => snapshot,
              publish(next) {
                snapshot = next;
                void file.save(next);
              },
            }),
          ],
    routes: [jettonsRoute({ ctx, view, loading: () => loading })],
    series: [{ kind: 'gzip', parts: async (at) => (stopped || !ctx.cluster.leads() ? [] : renderSeries(seriesInput, at)) }],
    polls: [{ query: QUERY, active: () => watchedJettons(current().config), fetchedAt: () => snapshot?.fetchedAt }],
    provides: { walletColumns: jettonColumns(() => current().config, view) },
    start() {
      if (!watchedJettons(current().config)) return;
      loading = true;
      loaded = loadPersisted()
        .catch((err: unknown) => ctx.logger.error({ err }, 'could not load the persisted jetton balances; starting without them'))
        .finally(() => (loading = false));
    },
    async stop() {
      stopped = true;
      await file.flush();
    },
  };
}

/**
 * What is served and exported: the snapshot's records of the configured masters only, and
 * the series renderer's input, each the same object while neither the snapshot nor the
 * config changed.
 */
function jettonViews(
  current: FeatureContext['current'],
  snapshotOf: () => JettonsSnapshot | null,
): { view: () => JettonsSnapshot | null; seriesInput: () => JettonSeriesInput } {
  let viewed: { snapshot: JettonsSnapshot | null; jettons: Config['jettons']; view: JettonsSnapshot | null } | null = null;
  const view = (): JettonsSnapshot | null => {
    const snapshot = snapshotOf();
    const { jettons: configured } = current().config;
    if (viewed?.snapshot !== snapshot || viewed.jettons !== configured)
      viewed = { snapshot, jettons: configured, view: jettonsSnapshotFor(snapshot, configured) };
    return viewed.view;
  };
  let input: JettonSeriesInput | null = null;
  const seriesInput = (): JettonSeriesInput => {
    const { config } = current();
    const shown = view();
    const { jettons: configured, watchJettons, watchlist } = config;
    if (input?.snapshot !== shown || input.jettons !== configured || input.watchlist !== watchlist || input.maxAgeSeconds !== config.snapshot.maxAgeSeconds) {
      input = { snapshot: shown, jettons: configured, watchJettons, watchlist, maxAgeSeconds: config.snapshot.maxAgeSeconds };
    }
    return input;
  };
  return { view, seriesInput };
}

/** The jetton poll of one configuration, once the persisted balances are in; in a cluster, on the replica that leads. */
function jettonsJob(
  ctx: FeatureContext,
  config: Config,
  client: UpstreamClient,
  parts: Pick<JettonPollDeps, 'batchSize' | 'previous' | 'publish'> & { loaded: () => Promise<void> },
): ScheduledJob {
  const due = async (): Promise<boolean> => {
    await parts.loaded();
    return ctx.cluster.leads();
  };
  return pollJob(ctx, QUERY, config.schedule.wallets, { due }, (signal) =>
    pollJettons(
      {
        client,
        logger: ctx.logger.child({ module: 'poll' }),
        config,
        batchSize: parts.batchSize,
        concurrency: walletConcurrency(config.upstreams[0]?.rps ?? 1),
        previous: parts.previous,
        publish: parts.publish,
      },
      signal,
    ),
  );
}
