import { createClusterFeature } from './cluster.js';
import type { Feature, FeatureContext } from './feature.js';
import { createJettonsFeature } from './jettons.js';
import { createLagCheckFeature } from './lag-check.js';
import { createQueueSizesFeature } from './queue-sizes.js';
import { createReadThroughFeature } from './read-through.js';
import { createStatusPageFeature } from './status-page.js';
import { createWalletsFeature } from './wallets.js';

/** The daemon's features, in the order they load, start and stop. Adding one: a module and a line. */
export function createFeatures(ctx: FeatureContext): readonly Feature[] {
  return [
    createClusterFeature(ctx),
    createQueueSizesFeature(ctx),
    createWalletsFeature(ctx),
    createJettonsFeature(ctx),
    createLagCheckFeature(ctx),
    createReadThroughFeature(ctx),
    createStatusPageFeature(),
  ];
}
