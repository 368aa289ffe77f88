import type { Config } from '../../domain/config.js';
import type { ScheduledJob } from '../../schedule/scheduler.js';
import { pollJob } from '../../schedule/poll-job.js';
import { ageSeconds, isFresh, notReadyReason } from '../../snapshot/freshness.js';
import { createPersistedPart } from '../../snapshot/persisted-file.js';
import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { QUEUE_SIZES_CONFIG } from './config.js';
import { QUEUE_METRICS } from './families.js';
import { QUEUE_FILE } from './file-format.js';
import { createQueueHistory } from './history.js';
import { pollQueueSizes, type QueueSizesPollDeps } from './poll.js';
import { renderQueueSeries } from './series.js';
import { queueSections } from './status.js';
import type { QueueSizesSnapshot } from './types.js';
import { queueRoutes } from './v2.js';
import { decodeQueueSizes, encodeQueueSizes } from './wire.js';

const QUERY = 'queue_sizes';

/**
 * Per-shard outbound queue sizes (toncenter's getOutMsgQueueSizes, or a liteserver's):
 * polled on `schedule.queueSizes`, persisted in `snapshot.file` and loaded before the
 * server listens (v2 answers from them at once), exported as ton_out_msg_queue_*, served
 * as toncenter's v2 answer, shown on the status page with their last hour. In a cluster,
 * the replica that leads polls and shares them; every replica serves them.
 */
export const queueSizes: Feature = {
  name: 'queue_sizes',
  config: QUEUE_SIZES_CONFIG,
  families: Object.values(QUEUE_METRICS),
  create: (ctx) => createQueueSizes(ctx),
};

/** The queue-size poll of one configuration; in a cluster, the replica that leads polls, and the others receive what it polled. */
function queueSizesJob(ctx: FeatureContext, config: Config, deps: QueueSizesPollDeps): ScheduledJob {
  return pollJob(ctx, QUERY, config.schedule.queueSizes, { due: () => Promise.resolve(ctx.cluster.leads()) }, (signal) => pollQueueSizes(deps, signal));
}

/** The ton_out_msg_queue_* lines of a snapshot, rendered once per snapshot; none for null. */
function renderedOncePerSnapshot(): (shown: QueueSizesSnapshot | null) => Buffer {
  let block = { snapshot: null as QueueSizesSnapshot | null, text: Buffer.alloc(0) };
  return (shown) => {
    if (shown !== block.snapshot) block = { snapshot: shown, text: shown === null ? Buffer.alloc(0) : Buffer.from(renderQueueSeries(shown)) };
    return block.text;
  };
}

function createQueueSizes(ctx: FeatureContext): FeatureParts {
  const { now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  let held: QueueSizesSnapshot | null = null;
  const history = createQueueHistory();
  const maxAgeSeconds = (): number => current().config.snapshot.maxAgeSeconds;
  const fresh = (snapshot: QueueSizesSnapshot | null): snapshot is QueueSizesSnapshot =>
    snapshot !== null && isFresh(snapshot.fetchedAt, now(), maxAgeSeconds());
  /** The file of the config in force (a reload may move it: the part held is written there at its next save). */
  const file = createPersistedPart(() => current().config.snapshot.file, {
    codec: QUEUE_FILE,
    logger: ctx.logger.child({ module: 'snapshot' }),
    now,
    wallOffset: ctx.wallOffset,
    observer: ctx.persisted,
  });

  const apply = (snapshot: QueueSizesSnapshot): void => {
    held = snapshot;
    history.record(snapshot);
  };
  const channel = ctx.cluster.channel<QueueSizesSnapshot>(QUERY, {
    keyOf: () => '',
    encode: encodeQueueSizes,
    decode: decodeQueueSizes,
    receive(records) {
      for (const received of records) if (held === null || received.fetchedAt > held.fetchedAt) apply(received);
    },
    held: () => (held !== null && ctx.cluster.leads() ? [held] : []),
  });
  const seriesText = renderedOncePerSnapshot();
  const routes = queueRoutes(() => held, ctx);

  return {
    jobs: ({ config, client }) => [
      queueSizesJob(ctx, config, {
        client,
        logger,
        publish(snapshot) {
          apply(snapshot);
          channel.publish([snapshot]);
          void file.save(snapshot);
        },
        held: () => (fresh(held) ? held : null),
        stale: (upstream) => ctx.metrics.staleAnswer(upstream, QUERY),
      }),
    ],
    routes: routes.paths,
    provides: {
      v2Methods: routes.methods,
      statusSections: queueSections({ held: () => held, history, maxAgeSeconds }),
    },
    series: [
      {
        kind: 'text',
        // In a cluster, exported by the replica that leads.
        text: () => seriesText(fresh(held) && ctx.cluster.leads() ? held : null),
      },
    ],
    polls: [{ query: QUERY, active: () => true, fetchedAt: () => held?.fetchedAt, alwaysExported: true }],
    readiness: () => {
      const reason = notReadyReason(QUERY, held?.fetchedAt, now(), maxAgeSeconds());
      return reason === null ? [] : [reason];
    },
    async load() {
      const loaded = await file.load();
      if (loaded === null) return;
      apply(loaded);
      ctx.logger.info({ file: file.file, ageSeconds: ageSeconds(loaded.fetchedAt, now()) }, 'loaded the persisted snapshot (queue sizes)');
    },
    async stop() {
      if (held !== null) await file.save(held);
    },
  };
}
