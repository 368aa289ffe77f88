/**
 * Named behaviours of the simulated network.
 * - calm: small queues with occasional bursts; a burst past 4096 splits a shard, and shards
 *   merge back once their queues fall under 2047.
 * - surge: one basechain shard's queue climbs past ext_msg_queue_size_limit and stays there.
 * - flaky: calm chain, but a share of requests fails in every way real upstreams fail.
 * - stall: calm chain, but one basechain shard stops producing blocks (its seqno freezes).
 */
export const SCENARIOS = ['calm', 'surge', 'flaky', 'stall'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export interface ScenarioParams {
  /** Basechain shards at start. */
  readonly initialShards: number;
  /** Ordinary inflow per block, messages: uniform in [0, max]. */
  readonly inflowMax: number;
  /** Chance per block and shard of a burst, and its size range. */
  readonly burstChance: number;
  readonly burstSize: readonly [number, number];
  /** Inflow per block pushed into the surging shard until it passes the limit. */
  readonly surgeInflow: number;
  /** Share of requests that fail (flaky). */
  readonly failureRate: number;
  /** Whether one shard stops producing blocks. */
  readonly stallOneShard: boolean;
}

export function scenarioParams(name: ScenarioName): ScenarioParams {
  const calm: ScenarioParams = {
    initialShards: 2,
    inflowMax: 120,
    burstChance: 0.01,
    burstSize: [800, 5200],
    surgeInflow: 0,
    failureRate: 0,
    stallOneShard: false,
  };
  switch (name) {
    case 'calm':
      return calm;
    case 'surge':
      return { ...calm, initialShards: 4, surgeInflow: 2600 };
    case 'flaky':
      return { ...calm, failureRate: 0.35 };
    case 'stall':
      return { ...calm, stallOneShard: true };
  }
}

export function isScenario(name: string): name is ScenarioName {
  return (SCENARIOS as readonly string[]).includes(name);
}
