import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { LAG_CHECK_CONFIG, lagCheckCron } from './config.js';
import { checkLag, createLagState } from './lag.js';

/**
 * The lag check: every lagCheck.everySeconds, each upstream's tip; the client passes
 * upstreams found behind over (the state is kept across reloads, and provided as
 * `upstreamLag`), and its gauges export the lags.
 */
export const lagCheck: Feature = {
  name: 'lag_check',
  config: LAG_CHECK_CONFIG,
  create: (ctx) => createLagCheck(ctx),
};

function createLagCheck(ctx: FeatureContext): FeatureParts {
  const lag = createLagState(ctx.logger.child({ module: 'lag' }));
  const logger = ctx.logger.child({ module: 'poll' });
  const { current } = ctx;
  ctx.metrics.gauge(
    {
      name: 'tonwatch_upstream_lag_blocks',
      help: 'Masterchain blocks the upstream is behind the most advanced upstream, at the last lag check.',
      labelNames: ['upstream'],
    },
    () => [...lag.current()].map(([upstream, found]) => [upstream, found.lagBlocks] as const),
  );
  ctx.metrics.gauge(
    {
      name: 'tonwatch_upstream_indexer_lag_blocks',
      help: "Masterchain blocks the upstream's v3 indexer is behind its own v2 tip, at the last lag check.",
      labelNames: ['upstream'],
    },
    () => [...lag.current()].map(([upstream, found]) => [upstream, found.indexerLagBlocks] as const),
  );
  ctx.metrics.gauge(
    {
      name: 'tonwatch_upstream_max_lag_blocks',
      help: 'lagCheck.maxLagBlocks: an upstream further behind is skipped (absent while the lag check is off).',
    },
    () => (current().config.lagCheck.everySeconds > 0 ? current().config.lagCheck.maxLagBlocks : undefined),
  );
  return {
    jobs: ({ config, client }) => {
      const cron = lagCheckCron(config.lagCheck.everySeconds);
      if (!cron) return [];
      return [
        {
          name: 'lag_check',
          cron,
          async run(signal) {
            await checkLag({ client, state: lag, maxLagBlocks: config.lagCheck.maxLagBlocks, logger }, signal);
          },
        },
      ];
    },
    provides: { upstreamLag: lag },
  };
}
