import type { TupleItem } from '@ton/core';

/**
 * What the chain-and-validator feature asks of an upstream, whatever its kind: the newest
 * block of every chain, config parameters, a get-method's result stack, and (a liteserver
 * only) who created how many blocks.
 */

/** The newest block of a chain: the masterchain's, or a shard's. */
export interface BlockHead {
  readonly workchain: number;
  /** The shard's id, unsigned 64 bits (0x8000000000000000: the whole workchain). */
  readonly shard: bigint;
  readonly seqno: number;
  /** When it was made (its gen_utime): unix seconds. */
  readonly genUtime: number;
}

/** Every chain's newest block, the masterchain first. */
export interface ChainHeadsAnswer {
  readonly blocks: readonly BlockHead[];
}

/** Config parameters' value cells as BoCs, by number; null for one the config does not hold. */
export type ConfigParamsAnswer = ReadonlyMap<number, Buffer | null>;

/** A get-method's outcome: its exit code, and its result stack, the first value returned first (@ton/core's items; a list as nested pairs). */
export interface GetMethodAnswer {
  readonly exitCode: number;
  readonly stack: readonly TupleItem[];
}

/** Blocks created, by creator's public key (hex); the all-zero key holds the totals. */
export type ValidatorStatsAnswer = ReadonlyMap<string, { readonly masterchain: bigint; readonly shardchain: bigint }>;
