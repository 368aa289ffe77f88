import { createReadThrough } from './read-through.js';
import type { Feature, FeatureContext } from '../feature.js';

/**
 * Read-through: walletStates for unwatched addresses, fetched through the client of the
 * config in force, inside its budget, with its batch size; closed at shutdown.
 */
export function createReadThroughFeature(ctx: FeatureContext): Feature {
  const { current } = ctx;
  const readThrough = createReadThrough({
    client: () => current().client,
    batchSize: () => current().batchSize,
    // A request waits as long as one request to the primary upstream may take.
    settings: () => ({ ...current().config.readThrough, timeoutMs: current().config.upstreams[0]?.timeoutMs ?? 10_000 }),
    now: ctx.now,
    logger: ctx.logger.child({ module: 'read-through' }),
    count: (result, addresses) => ctx.self.readThrough(result, addresses),
  });
  return {
    name: 'read_through',
    serves: { readThrough },
    health: { readThroughCacheSize: () => (current().config.readThrough.enabled ? readThrough.size : undefined) },
    stop: () => readThrough.close(),
  };
}
