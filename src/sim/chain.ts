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

/** The basechain's shards at the start: the whole workchain split evenly until there are at least `count`, with small queues. */
function firstShards(count: number, seed: number, random: Random, genUtime: number): ShardState[] {
  let leaves = [WHOLE_WORKCHAIN_SHARD];
  while (leaves.length < count) leaves = leaves.flatMap((s) => splitShard(s));
  const seqnoBase = 45_000_000 + (seed % 1_000_000);
  return leaves.map((shard, i) => ({ shard, seqno: seqnoBase + i * 7, size: random.int(0, 60), calmSteps: 0, stalled: false, genUtime }));
}

/** One block on a shard: its queue processed at a quarter (and 50) a block, plus the inflow, bursts and `surge` of the scenario. */
function produceBlock(s: ShardState, block: { random: Random; params: ScenarioParams; genUtime: number; surge: number }): void {
  const { random, params } = block;
  s.seqno += 1;
  s.genUtime = block.genUtime;
  const processed = Math.min(s.size, Math.floor(s.size * 0.25) + 50);
  let inflow = random.int(0, params.inflowMax);
  if (random.chance(params.burstChance)) inflow += random.int(params.burstSize[0], params.burstSize[1]);
  s.size = s.size - processed + inflow + block.surge;
  s.calmSteps = s.size < MERGE_QUEUE_SIZE ? s.calmSteps + 1 : 0;
}

/** Splits `state` into its two children in `shards` (kept in shard order), the queue halved between them. */
function splitInPlace(shards: ShardState[], state: ShardState, genUtime: number): void {
  const [left, right] = splitShard(state.shard);
  const half = Math.floor(state.size / 2);
  const children = [
    { shard: left, seqno: state.seqno + 1, size: half, calmSteps: 0, stalled: false, genUtime },
    { shard: right, seqno: state.seqno + 1, size: state.size - half, calmSteps: 0, stalled: false, genUtime },
  ];
  shards.splice(shards.indexOf(state), 1, ...children);
  shards.sort((a, b) => (a.shard < b.shard ? -1 : 1));
}

/** The shards after merging siblings that both stayed calm long enough, down to `minShards`. */
function mergeCalmSiblings(shards: ShardState[], minShards: number, genUtime: number): ShardState[] {
  let out = shards;
  if (out.length <= minShards) return out;
  for (const s of [...out]) {
    const sibling = out.find((o) => o.shard === siblingShard(s.shard));
    if (!sibling || s.shard > sibling.shard || s.stalled || sibling.stalled) continue;
    if (s.calmSteps >= MERGE_AFTER_STEPS && sibling.calmSteps >= MERGE_AFTER_STEPS && s.size + sibling.size < MERGE_QUEUE_SIZE) {
      const merged = {
        shard: parentShard(s.shard),
        seqno: Math.max(s.seqno, sibling.seqno) + 1,
        size: s.size + sibling.size,
        calmSteps: 0,
        stalled: false,
        genUtime,
      };
      out = out
        .filter((o) => o !== s && o !== sibling)
        .concat(merged)
        .sort((a, b) => (a.shard < b.shard ? -1 : 1));
      if (out.length <= minShards) return out;
    }
  }
  return out;
}

/** A block's queue as the upstreams tell it, with hashes derived from the seed. */
function queueView(seed: number, block: { workchain: number; shard: bigint; seqno: number; size: number; genUtime: number }): SimShardQueue {
  const { workchain, shard, seqno } = block;
  const hash = (kind: string): string => createHash('sha256').update(`${seed}:${kind}:${workchain}:${shard}:${seqno}`).digest('base64');
  return { workchain, shard: unsignedShardToSigned(shard), seqno, rootHash: hash('root'), fileHash: hash('file'), size: block.size, genUtime: block.genUtime };
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

  const applyScenario = (name: ScenarioName): void => {
    scenario = name;
    params = scenarioParams(name);
    scenarioStartedAt = height;
    // The widest shard splits first, until the scenario's count.
    while (shards.length < params.initialShards) splitState(shards.reduce((a, b) => ((a.shard & -a.shard) >= (b.shard & -b.shard) ? a : b)));
    for (const s of shards) s.stalled = false;
    const last = shards[shards.length - 1];
    if (params.stallOneShard && last) last.stalled = true;
  };

  const splitState = (state: ShardState): void => splitInPlace(shards, state, utime());

  const surgeTarget = (): ShardState | undefined => (params.surgeInflow > 0 ? shards[0] : undefined);

  const produceBlocks = (): void => {
    const surge = Math.round(params.surgeInflow * Math.min(1, (height - scenarioStartedAt) / SURGE_RAMP_STEPS));
    const producing = shards.filter((s) => !s.stalled && !held.has(shardName(s.shard)));
    for (const s of producing) produceBlock(s, { random, params, genUtime: utime(), surge: s === surgeTarget() ? surge : 0 });
  };

  const splitAndMerge = (): void => {
    const target = surgeTarget();
    for (const s of [...shards]) {
      if (s.size > SPLIT_QUEUE_SIZE && !s.stalled && s !== target && shards.length < MAX_BASECHAIN_SHARDS) splitState(s);
    }
    shards = mergeCalmSiblings(shards, params.initialShards, utime());
  };

  const view = (workchain: number, shard: bigint, seqno: number, size: number, genUtime: number): SimShardQueue =>
    queueView(seed, { workchain, shard, seqno, size, genUtime });

  shards = firstShards(params.initialShards, seed, random, utime());
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
