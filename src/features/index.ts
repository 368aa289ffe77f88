import { createClusterFeature } from '../app/cluster-lifecycle.js';
import type { Feature, FeatureContext } from './feature.js';
import { createJettonsFeature } from './jettons/index.js';
import { createLagCheckFeature } from './lag-check/index.js';
import { createQueueSizesFeature } from './queue-sizes/index.js';
import { createReadThroughFeature } from './read-through/index.js';
import { createStatusPageFeature } from './status-page/index.js';
import { createWalletsFeature } from './wallets/index.js';

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
