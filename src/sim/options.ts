/**
 * The simulator's options and their defaults, apart from the simulator itself, so that
 * the command line can print and check them without loading the simulator (and @ton/core).
 */
import type { ScenarioName } from './scenarios.js';
import type { SimStyle } from './v2-bodies.js';

export interface SimulatorOptions {
  readonly seed: number;
  readonly scenario: ScenarioName;
  readonly style: SimStyle;
  /** Requests per second before 429; null for unlimited. */
  readonly rps: number | null;
  /** Simulated accounts. */
  readonly accounts: number;
  /** One block every blockMs on every shard; 0 to step only through /_sim/step (tests). */
  readonly blockMs: number;
  readonly testnet: boolean;
  /** Longer walletStates URLs get 414, like nginx's default 8 KiB header buffer. */
  readonly maxUrlBytes: number;
  /** How long a simulated timeout holds a connection. */
  readonly hangMs: number;
  /** Masterchain blocks the served tip is held behind the chain (a lagging upstream). */
  readonly lagBlocks: number;
  /** Blocks the v3 indexer is further behind the served v2 tip. */
  readonly indexerLagBlocks: number;
  /** Also serve the chain as a liteserver (ADNL over TCP) on this port (0: any free port); null: no liteserver. */
  readonly liteserverPort: number | null;
  /** The liteserver answers getOutMsgQueueSizes with liteServer.error, as a node older than 2024.04. */
  readonly liteserverWithoutQueueSizes: boolean;
  /** A validator round (config 15's validators_elected_for), seconds: mainnet's is ~18 hours, the simulator's minutes. */
  readonly validatorRoundSeconds: number;
  readonly now: () => number;
}

export const DEFAULT_SIMULATOR_OPTIONS: Omit<SimulatorOptions, 'now'> = {
  seed: 1,
  scenario: 'calm',
  style: 'python',
  rps: null,
  accounts: 60,
  blockMs: 1000,
  validatorRoundSeconds: 120,
  testnet: false,
  maxUrlBytes: 8192,
  hangMs: 30_000,
  lagBlocks: 0,
  indexerLagBlocks: 0,
  liteserverPort: null,
  liteserverWithoutQueueSizes: false,
};
