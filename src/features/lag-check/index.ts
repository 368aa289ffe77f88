import { lagCheckCron } from '../../schedule/cron.js';
import { checkLag, createLagState } from './lag.js';
import type { Feature, FeatureContext } from '../feature.js';

/**
 * The lag check: every lagCheck.everySeconds, each upstream's tip; the client passes
 * upstreams found behind over (the state is kept across reloads), and the self metrics
 * export the lags.
 */
export function createLagCheckFeature(ctx: FeatureContext): Feature {
  const lag = createLagState(ctx.logger.child({ module: 'lag' }));
  const logger = ctx.logger.child({ module: 'poll' });
  const { current } = ctx;
  return {
    name: 'lag_check',
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
    upstreams: lag,
    health: {
      upstreamLags: () => lag.current(),
      maxLagBlocks: () => (current().config.lagCheck.everySeconds > 0 ? current().config.lagCheck.maxLagBlocks : undefined),
    },
  };
}
