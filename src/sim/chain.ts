import { createHash } from 'node:crypto';
import { WHOLE_WORKCHAIN_SHARD, parentShard, siblingShard, splitShard, unsignedShardToHex, unsignedShardToSigned } from '../ton/shard.js';
import type { Random } from './random.js';
import { scenarioParams, type ScenarioName, type ScenarioParams } from './scenarios.js';

/**
 * The simulated chain: a masterchain and basechain shards whose outbound queues follow
 * inflow, bursts and decay; a shard splits above 4096 queued messages and siblings merge
 * once both stay under 2047; block seqnos advance one per step (one step = one block).
 */

/** The collator's constants: a split is forced at 4096 queued messages, a merge allowed under 2047. */
export const SPLIT_QUEUE_SIZE = 4096;
export const MERGE_QUEUE_SIZE = 2047;
export const EXT_MSG_QUEUE_SIZE_LIMIT = 8000;
const MAX_BASECHAIN_SHARDS = 4;
/** Blocks both siblings must stay under the merge threshold before they merge. */
const MERGE_AFTER_STEPS = 30;
/** Blocks over which the surge's inflow ramps up, so the climb has a slope to predict. */
const SURGE_RAMP_STEPS = 60;
/** How stall() names the masterchain; a shard is `0:<16 hex digits>`. */
export const MASTERCHAIN = 'masterchain';
const shardName = (shard: bigint): string => `0:${unsignedShardToHex(shard)}`;

interface ShardState {
  shard: bigint;
  seqno: number;
  size: number;
  calmSteps: number;
  /** Stalled by the scenario. */
  stalled: boolean;
  /** When its top block was made: unix seconds. */
  genUtime: number;
}

/** One shard block's queue, in the upstream's terms. */
export interface SimShardQueue {
  readonly workchain: number;
  /** Signed 64-bit decimal. */
  readonly shard: string;
  readonly seqno: number;
  readonly rootHash: string;
  readonly fileHash: string;
  readonly size: number;
  /** When the block was made: unix seconds. */
  readonly genUtime: number;
}

export interface SimChain {
  /** Produces one block on every (non-stalled) shard. */
  step(): void;
  /** Masterchain first, then basechain shards in shard order. */
  queues(): SimShardQueue[];
  setScenario(name: ScenarioName): void;
  readonly scenario: ScenarioName;
  readonly limit: number;
  /** Steps taken so far. */
  readonly height: number;
  /**
   * Stops (or lets go on) block production on one chain: `masterchain`, or a basechain
   * shard as `0:<16 hex digits>`; `resume` lets every chain go on. False for a shard that
   * does not exist.
   */
  stall(chain: string, stalled: boolean): boolean;
  /** The chains stalled by stall(), as named there. */
  stalled(): readonly string[];
}

export function createSimChain(options: { random: Random; seed: number; scenario: ScenarioName; now?: () => number }): SimChain {
  const { random, seed } = options;
  const utime = (): number => Math.floor((options.now ?? Date.now)() / 1000);
  /** Chains stalled on request (stall()): `masterchain`, or a shard's `0:<hex>`. */
  const held = new Set<string>();
  let scenario = options.scenario;
  let params: ScenarioParams = scenarioParams(scenario);
  let height = 0;
  let scenarioStartedAt = 0;
  let masterchain = { seqno: 40_000_000 + (seed % 1_000_000), size: 0, genUtime: utime() };
  let shards: ShardState[] = [];

  const resetShards = (): void => {
    let leaves = [WHOLE_WORKCHAIN_SHARD];
    while (leaves.length < params.initialShards) leaves = leaves.flatMap((s) => splitShard(s));
    const seqnoBase = 45_000_000 + (seed % 1_000_000);
    shards = leaves.map((shard, i) => ({ shard, seqno: seqnoBase + i * 7, size: random.int(0, 60), calmSteps: 0, stalled: false, genUtime: utime() }));
  };

  const applyScenario = (name: ScenarioName): void => {
    scenario = name;
    params = scenarioParams(name);
    scenarioStartedAt = height;
    if (shards.length < params.initialShards) {
      while (shards.length < params.initialShards) {
        const widest = shards.reduce((a, b) => ((a.shard & -a.shard) >= (b.shard & -b.shard) ? a : b));
        splitState(widest);
      }
    }
    for (const s of shards) s.stalled = false;
    const stalled = shards[shards.length - 1];
    if (params.stallOneShard && stalled) stalled.stalled = true;
  };

  const splitState = (state: ShardState): void => {
    const [left, right] = splitShard(state.shard);
    const half = Math.floor(state.size / 2);
    const children = [
      { shard: left, seqno: state.seqno + 1, size: half, calmSteps: 0, stalled: false, genUtime: utime() },
      { shard: right, seqno: state.seqno + 1, size: state.size - half, calmSteps: 0, stalled: false, genUtime: utime() },
    ];
    shards.splice(shards.indexOf(state), 1, ...children);
    shards.sort((a, b) => (a.shard < b.shard ? -1 : 1));
  };

  const surgeTarget = (): ShardState | undefined => (params.surgeInflow > 0 ? shards[0] : undefined);

  const produceBlocks = (): void => {
    const target = surgeTarget();
    for (const s of shards) {
      if (s.stalled || held.has(shardName(s.shard))) continue;
      s.seqno += 1;
      s.genUtime = utime();
      const processed = Math.min(s.size, Math.floor(s.size * 0.25) + 50);
      let inflow = random.int(0, params.inflowMax);
      if (random.chance(params.burstChance)) inflow += random.int(params.burstSize[0], params.burstSize[1]);
      if (s === target) inflow += Math.round(params.surgeInflow * Math.min(1, (height - scenarioStartedAt) / SURGE_RAMP_STEPS));
      s.size = s.size - processed + inflow;
      s.calmSteps = s.size < MERGE_QUEUE_SIZE ? s.calmSteps + 1 : 0;
    }
  };

  const splitAndMerge = (): void => {
    const target = surgeTarget();
    for (const s of [...shards]) {
      if (s.size > SPLIT_QUEUE_SIZE && !s.stalled && s !== target && shards.length < MAX_BASECHAIN_SHARDS) splitState(s);
    }
    if (shards.length <= params.initialShards) return;
    for (const s of [...shards]) {
      const sibling = shards.find((o) => o.shard === siblingShard(s.shard));
      if (!sibling || s.shard > sibling.shard || s.stalled || sibling.stalled) continue;
      if (s.calmSteps >= MERGE_AFTER_STEPS && sibling.calmSteps >= MERGE_AFTER_STEPS && s.size + sibling.size < MERGE_QUEUE_SIZE) {
        const merged = {
          shard: parentShard(s.shard),
          seqno: Math.max(s.seqno, sibling.seqno) + 1,
          size: s.size + sibling.size,
          calmSteps: 0,
          stalled: false,
          genUtime: utime(),
        };
        shards = shards
          .filter((o) => o !== s && o !== sibling)
          .concat(merged)
          .sort((a, b) => (a.shard < b.shard ? -1 : 1));
        if (shards.length <= params.initialShards) return;
      }
    }
  };

  const hash = (kind: string, workchain: number, shard: bigint, seqno: number): string =>
    createHash('sha256').update(`${seed}:${kind}:${workchain}:${shard}:${seqno}`).digest('base64');

  const view = (workchain: number, shard: bigint, seqno: number, size: number, genUtime: number): SimShardQueue => ({
    workchain,
    shard: unsignedShardToSigned(shard),
    seqno,
    rootHash: hash('root', workchain, shard, seqno),
    fileHash: hash('file', workchain, shard, seqno),
    size,
    genUtime,
  });

  resetShards();
  applyScenario(scenario);
  return {
    step() {
      height += 1;
      const size = random.int(0, 3);
      if (!held.has(MASTERCHAIN)) masterchain = { seqno: masterchain.seqno + 1, size, genUtime: utime() };
      produceBlocks();
      splitAndMerge();
    },
    queues: () => [
      view(-1, WHOLE_WORKCHAIN_SHARD, masterchain.seqno, masterchain.size, masterchain.genUtime),
      ...shards.map((s) => view(0, s.shard, s.seqno, s.size, s.genUtime)),
    ],
    stall(chain, stalled) {
      if (chain !== MASTERCHAIN && !shards.some((s) => shardName(s.shard) === chain)) return false;
      if (stalled) held.add(chain);
      else held.delete(chain);
      return true;
    },
    stalled: () => [...held],
    setScenario: applyScenario,
    get scenario() {
      return scenario;
    },
    limit: EXT_MSG_QUEUE_SIZE_LIMIT,
    get height() {
      return height;
    },
  };
}
