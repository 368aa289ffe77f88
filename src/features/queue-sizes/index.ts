import { pollQueueSizes } from './poll.js';
import { ageSeconds, isFresh } from '../../snapshot/freshness.js';
import { pollJob, type Feature, type FeatureContext } from '../feature.js';

/**
 * The queue-size poll: its job, and the persisted queue sizes loaded before the server
 * listens (a few hundred bytes: v2 answers from them at once).
 */
export function createQueueSizesFeature(ctx: FeatureContext): Feature {
  const { store, now, current } = ctx;
  const logger = ctx.logger.child({ module: 'poll' });
  return {
    name: 'queue_sizes',
    jobs: ({ config, client, persister }) => [
      // In a cluster, the replica that leads polls; the others receive what it polled.
      pollJob(ctx, 'queue_sizes', config.schedule.queueSizes, { due: () => Promise.resolve(ctx.cluster.leads()) }, (signal) =>
        pollQueueSizes(
          {
            client,
            logger,
            publish(snapshot) {
              store.replaceQueueSizes(snapshot);
              ctx.cluster.shareQueueSizes(snapshot);
              void persister.save(store.current());
            },
            held: () => {
              const held = store.current().queueSizes;
              return held !== null && isFresh(held.fetchedAt, now(), config.snapshot.maxAgeSeconds) ? held : null;
            },
            stale: (upstream) => ctx.self.staleAnswer(upstream, 'queue_sizes'),
          },
          signal,
        ),
      ),
    ],
    async load() {
      const queueSizes = await current().persister.loadQueueSizes();
      if (queueSizes === null) return;
      store.replaceQueueSizes(queueSizes);
      const { file } = current().config.snapshot;
      ctx.logger.info({ file, ageSeconds: ageSeconds(queueSizes.fetchedAt, now()) }, 'loaded the persisted snapshot (queue sizes)');
    },
  };
}
