import type { Feature, FeatureContext, FeatureParts } from '../feature.js';
import { READ_THROUGH_CONFIG } from './config.js';
import { createReadThrough, type ReadThroughResult } from './read-through.js';

const RESULTS: readonly ReadThroughResult[] = ['hit', 'fetched', 'coalesced', 'unknown', 'refused'];

/**
 * Read-through (opt-in, `readThrough.enabled`): walletStates for unwatched addresses,
 * fetched through the client of the config in force, inside its budget below the polls,
 * with the wallet batches' size, fairly between client addresses, kept for ttlSeconds;
 * closed at shutdown. The walletStates route asks it through `provides.unwatched`.
 */
export const readThrough: Feature = {
  name: 'read_through',
  config: READ_THROUGH_CONFIG,
  create: (ctx) => createReadThroughFeature(ctx),
};

function createReadThroughFeature(ctx: FeatureContext): FeatureParts {
  const { current } = ctx;
  const count = ctx.metrics.counter(
    {
      name: 'tonwatch_read_through_addresses_total',
      help:
        'Unwatched addresses asked with read-through: hit (cached), fetched, coalesced (joined a fetch in flight), unknown (the upstream does not ' +
        "know it), refused (past maxPendingAddresses or the client address's share of it).",
      labelNames: ['result'],
    },
    RESULTS.map((result) => [result]),
  );
  const lookup = createReadThrough({
    client: () => current().client,
    batchSize: () => current().batchSize,
    // A request waits as long as one request to the primary upstream may take.
    settings: () => ({ ...current().config.readThrough, timeoutMs: current().config.upstreams[0]?.timeoutMs ?? 10_000 }),
    now: ctx.now,
    logger: ctx.logger.child({ module: 'read-through' }),
    count: (result, addresses) => count([result], addresses),
  });
  ctx.metrics.gauge({ name: 'tonwatch_read_through_cache_addresses', help: 'Addresses in the read-through cache (absent while read-through is off).' }, () =>
    current().config.readThrough.enabled ? lookup.size : undefined,
  );
  return {
    provides: {
      unwatched: {
        settings: () => current().config.readThrough,
        lookup: (raws, client) => lookup.lookup(raws, client),
        admits: (client) => lookup.admits(client),
        refusal: (addresses) => lookup.refusal(addresses),
      },
    },
    stop: () => lookup.close(),
  };
}
