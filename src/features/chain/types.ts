import type { BlockHead } from '../../domain/chain.js';
import type { ElectionTiming, StakeLimits, ValidatorSet } from '../../ton/config-params.js';
import type { CreatorCounts } from '../../ton/mc-state.js';
import type { Election, PastElection } from './elector.js';

/** Every chain's newest block, as one poll found them. Immutable, replaced whole. */
export interface HeadsSnapshot {
  readonly blocks: readonly BlockHead[];
  /** Process clock, ms. */
  readonly fetchedAt: number;
  readonly upstream: string;
}

/** The validator sets (config 32, 34, 36), the election rules (15, 17), the elector's elections and the block creators. Immutable. */
export interface ValidatorsSnapshot {
  readonly fetchedAt: number;
  readonly upstream: string;
  readonly sets: { readonly previous: ValidatorSet | null; readonly current: ValidatorSet | null; readonly next: ValidatorSet | null };
  readonly timing: ElectionTiming | null;
  readonly limits: StakeLimits | null;
  readonly election: Election | null;
  readonly past: readonly PastElection[];
  /** Blocks created by public key (the all-zero key: the totals); null when no upstream gives them (toncenter). */
  readonly creators: ReadonlyMap<string, CreatorCounts> | null;
}

/** What the chain feature holds: both parts, each from its own poll. */
export interface ChainSnapshot {
  readonly heads: HeadsSnapshot | null;
  readonly validators: ValidatorsSnapshot | null;
}

export const SET_NAMES = ['previous', 'current', 'next'] as const;
export type SetName = (typeof SET_NAMES)[number];
