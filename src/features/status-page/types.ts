/**
 * The status page's data, as `/api/status` and `/api/status/wallets` send it and as
 * render.ts draws it (on the server for the first paint, in the browser after). Plain JSON.
 */

export type PressureLevel = 'ok' | 'warning' | 'critical';

export interface ShardStatus {
  readonly workchain: number;
  /** Unsigned 16-digit hex, as in the metrics. */
  readonly shard: string;
  readonly seqno: number;
  readonly size: number;
  /** size / ext_msg_queue_size_limit; null when the limit is 0. */
  readonly ratio: number | null;
  readonly level: PressureLevel;
}

export interface WalletRow {
  readonly name: string;
  /** Raw uppercase form. */
  readonly address: string;
  readonly userFriendly: string;
  /** active | uninit | frozen | nonexist | unknown (the upstream does not know it) | no data (not fetched yet, or stale). */
  readonly status: string;
  /** Balance in TON, decimal text; null when unknown. */
  readonly balanceTons: string | null;
  readonly minBalanceTons: number | null;
  /** One cell per watched jetton (WalletPage.jettons' order): balance in jetton units (null when not watched for it or not fresh), threshold. */
  readonly jettons: readonly JettonCell[];
  /** Why it needs attention, or null. */
  readonly attention: 'below_threshold' | 'below_jetton_threshold' | 'not_active' | null;
}

export interface JettonCell {
  readonly balance: string | null;
  readonly min: number | null;
  readonly below: boolean;
}

export interface WalletPage {
  /** The search text, '' for the default list (those needing attention first). */
  readonly query: string;
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  /** The jetton columns, by the config's names. */
  readonly jettons: readonly string[];
  /** The order: '' (those needing attention first), `name`, `balance` or `jetton:<NAME>` (largest first). */
  readonly sort: string;
  readonly rows: readonly WalletRow[];
}

export interface UpstreamStatus {
  readonly name: string;
  readonly url: string;
  readonly lastSuccessAt: number | null;
  /** Answers of the last ten minutes by code. */
  readonly recentCodes: Readonly<Record<string, number>>;
  readonly rateLimited: number;
  readonly lagBlocks: number | null;
  readonly indexerLagBlocks: number | null;
}

export interface StatusModel {
  readonly version: string;
  /** ms since epoch. */
  readonly generatedAt: number;
  /** The alert rules' thresholds, so the colours match the alerts. */
  readonly thresholds: { readonly warning: number; readonly critical: number };
  readonly queue: {
    readonly fetchedAt: number;
    readonly ageSeconds: number;
    readonly fresh: boolean;
    readonly upstream: string;
    readonly limit: number;
    readonly shards: readonly ShardStatus[];
  } | null;
  readonly history: {
    readonly fromSeconds: number;
    readonly toSeconds: number;
    readonly series: readonly { readonly shard: string; readonly points: readonly (readonly [number, number])[] }[];
  };
  readonly wallets: {
    readonly watched: number;
    readonly fetchedAt: number | null;
    readonly ageSeconds: number | null;
    /** How many need attention (below threshold or not active). */
    readonly attention: number;
  };
  readonly upstreams: readonly UpstreamStatus[];
}
