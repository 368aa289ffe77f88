import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { createStatusRoutes } from './routes.js';
import { createUpstreamHealth } from './upstream-health.js';
import { upstreamsSection } from './upstreams.js';

/**
 * The status page (`/`): every feature's sections (provided as `statusSections`) on one
 * page, readable without JavaScript and live with it, and its own section, each upstream's
 * recent health (from every upstream request's outcome) and lag.
 */
export const statusPage: Feature = {
  name: 'status_page',
  create: (ctx) => createStatusPage(ctx),
};

function createStatusPage(ctx: FeatureContext): FeatureParts {
  const health = createUpstreamHealth();
  /** The sections of every feature, in page order: worked out once (what features provide is fixed at start). */
  let sections: ReturnType<typeof ctx.provided.all<'statusSections'>>[number] | null = null;
  const ordered = () => (sections ??= [...ctx.provided.all('statusSections').flat()].sort((a, b) => a.order - b.order));
  return {
    routes: createStatusRoutes({ version: ctx.version, now: ctx.now, sections: ordered, logger: ctx.logger.child({ module: 'status' }) }),
    provides: {
      statusSections: [upstreamsSection({ config: () => ctx.current().config, health, lags: () => ctx.provided.all('upstreamLag') })],
    },
    onUpstreamRequest: (upstream, code, at) => health.observe(upstream, code, at),
  };
}
