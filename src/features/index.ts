import type { ConfigPiece } from '../config/piece.js';
import { chain } from './chain/index.js';
import type { Feature } from './feature.js';
import { jettons } from './jettons/index.js';
import { lagCheck } from './lag-check/index.js';
import { queueSizes } from './queue-sizes/index.js';
import { readThrough } from './read-through/index.js';
import { statusPage } from './status-page/index.js';
import { wallets } from './wallets/index.js';

/**
 * The daemon's features, in the order they load, start and stop, and their series come on
 * /metrics. Adding a feature is adding its folder and a line here.
 */
export const FEATURES: readonly Feature[] = [queueSizes, wallets, jettons, chain, lagCheck, readThrough, statusPage];

/** The features' keys of the config file. */
export const CONFIG_PIECES: readonly ConfigPiece[] = FEATURES.flatMap((feature) => (feature.config === undefined ? [] : [feature.config]));
