import type { WebConfig } from './web-config.js';

/**
 * The effective configuration, as every layer sees it. config/schema.ts parses the file
 * into exactly this shape (checked at compile time there); the defaults and limits live in
 * that schema, and the README's configuration reference repeats them.
 */

/** What every upstream has, whatever its kind. */
export interface UpstreamCommon {
  /** `[a-z0-9_-]+`; used in logs and metric labels. */
  readonly name: string;
  /** Request budget in requests per second (token bucket); for a liteserver upstream, lite API calls. Default 1. */
  readonly rps: number;
  /** Per-request timeout in milliseconds (HTTP: connect, headers and body; liteserver: connect, handshake and answer). Default 10,000. */
  readonly timeoutMs: number;
}

/**
 * Each upstream kind's settings, by kind. Every kind adds its own from its module
 * (upstream/<kind>/settings.ts, by declaration merging), so adding a kind is adding a
 * module: nothing here changes.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the kinds' modules
export interface UpstreamSettingsByKind {}

/** One upstream, in failover order: the settings of one of the kinds. */
export type UpstreamSettings = UpstreamSettingsByKind[keyof UpstreamSettingsByKind];

/**
 * A URL as it may be shown: `scheme://host[:port]`, and `/…` when it had a path, a query
 * or a fragment. Providers put keys in the path (`https://host/<token>/api/v2`), in the
 * query, or as `user:pass@`: none of it is shown, ever.
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const rest = (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search !== '' || parsed.hash !== '';
    return `${parsed.protocol}//${parsed.host}${rest ? '/…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/** Retry rounds through every upstream, with exponential backoff and full jitter. */
export interface RetryPolicy {
  /** Rounds before a poll counts as failed. Default 3. */
  readonly attempts: number;
  /** First backoff delay in ms; doubles each round. Default 500. */
  readonly baseDelayMs: number;
  /** Upper bound of one delay in ms, Retry-After included. Default 10,000. */
  readonly maxDelayMs: number;
}

/** A watchlist entry as written in the config file. */
export interface WatchlistEntry {
  /** Any accepted address form. */
  readonly address: string;
  readonly name?: string | undefined;
  readonly labels: Readonly<Record<string, string>>;
  /** Alert threshold in TON; exported as ton_wallet_min_balance_tons. */
  readonly minBalanceTons?: number | undefined;
  // The features' keys (config/piece.ts: watchlistKeys) join this interface from their config modules.
}

/** A watchlist file with the features' keys for each of its addresses (config/piece.ts: watchlistFileKeys). */
export interface WatchlistFileSettings {
  readonly file: string;
}

/** One wallet on the watchlist, address already canonical. */
export interface WatchedWallet {
  /** Raw uppercase form: the key everywhere (snapshot, metrics, served responses). */
  readonly raw: string;
  /** The `name` label; the address as written when the entry has none. */
  readonly name: string;
  /** Extra labels put on every series of this wallet. */
  readonly labels: Readonly<Record<string, string>>;
  readonly minBalanceTons: number | undefined;
  // The features' watchlist keys (config/piece.ts) join this interface from their config modules, each a frozen value or undefined.
}

/**
 * The default listen port. Prometheus' list of default port allocations has given away all
 * of 9100-9999; 10384 belongs to no exporter on it and to no common service (kubelet and
 * kube-proxy use 10248-10259, Zabbix 10050/10051, Webmin 10000). The README says why.
 */
export const DEFAULT_LISTEN_PORT = 10384;
/** The simulator's default port (and the demo's simulator: the daemon's port + 1). */
export const DEFAULT_SIMULATOR_PORT = DEFAULT_LISTEN_PORT + 1;

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** Where and how the HTTP server listens. */
export interface ListenSettings {
  /** Default 0.0.0.0; a change needs a restart. */
  readonly host: string;
  /** Default DEFAULT_LISTEN_PORT (10384); a change needs a restart. */
  readonly port: number;
  /** /metrics requests answered at once; more get 503 with Retry-After. 0: no limit. Default 40. */
  readonly maxMetricsRequests: number;
  /**
   * Connections open at once. At the limit a new connection closes the longest-idle one
   * (no request in flight) and takes its place; it is refused only when every one is
   * mid-request. Default 1000.
   */
  readonly maxConnections: number;
  /**
   * Connections one client address holds at once, past which its own longest-idle one makes
   * room (or the new one is refused). Default: half of maxConnections.
   */
  readonly maxConnectionsPerClient?: number | undefined;
  /** A TLS handshake not finished within this many seconds is cut, nothing written. Default 10. */
  readonly tlsHandshakeTimeoutSeconds: number;
  /**
   * Host header values answered (a name or address, with or without its port); any other
   * gets 421. Empty (the default): every Host. Against DNS rebinding.
   */
  readonly allowedHosts: readonly string[];
  /** A response not taken by the client within this many seconds is cut. Default 60. */
  readonly sendTimeoutSeconds: number;
  /** The web config file as written (relative to the config file); `web` holds what it says. */
  readonly webConfigFile?: string | undefined;
}

/**
 * The schedules of `schedule:`, by key: each feature adds its own from its config module
 * (`declare module '…/domain/config.js' { interface Schedules { wallets: string } }`), as
 * it adds its keys to Config itself. The core names none of them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled in by the features' config modules
export interface Schedules {}

/**
 * The effective configuration: defaults applied, paths absolute, watchlist resolved. Frozen.
 * The core's keys are here; each feature adds its own to this interface from its config
 * module (features/<name>/config.ts, by declaration merging).
 */
export interface Config {
  /** Where the HTTP server listens (default 0.0.0.0:10384); a change needs a restart. */
  readonly listen: ListenSettings;
  /** In priority order; a failing upstream fails over to the next. */
  readonly upstreams: readonly UpstreamSettings[];
  /** node-cron expressions, seconds field allowed. */
  readonly schedule: Schedules;
  readonly retry: RetryPolicy;
  /** Addresses per walletStates request, 1..1024 (default 1000); shrinks by itself on 414/431. */
  readonly walletBatchSize: number;
  readonly snapshot: {
    /** Absolute path of the first part's file; the other parts go beside it, `<name>.<part>.json` (snapshot/persisted-file.ts). */
    readonly file: string;
    /** Older data is neither served nor exported. Default 300. */
    readonly maxAgeSeconds: number;
  };
  /** User-friendly forms computed locally get the testnet flag. */
  readonly testnet: boolean;
  /** Every watched wallet, inline entries and files merged, duplicates folded. */
  readonly watchlist: readonly WatchedWallet[];
  /** The file's watchlist entries as written (for check-config). */
  readonly watchlistEntries: readonly WatchlistEntry[];
  /** Absolute paths of the address files. */
  readonly watchlistFiles: readonly string[];
  readonly log: { readonly level: LogLevel };
  /** The file this came from, or null for built-in defaults. */
  readonly configPath: string | null;
  /** TLS, basic auth and headers from listen.webConfigFile or --web.config.file; null: none. */
  readonly web: WebConfig | null;
  /** Replicas sharing one watchlist, budget and snapshot through Redis; null: one process. */
  readonly cluster: ClusterSettings | null;
}

/** The `cluster` section (config/cluster-schema.ts). */
export interface ClusterSettings {
  /** redis:// or rediss:// URL; its credentials are secrets. */
  readonly redis: string;
  /** Prefix of every key: replicas of one name share a watchlist. */
  readonly name: string;
  readonly memberTtlSeconds: number;
  /** This replica's id; default `<host name>:<listen port>`. */
  readonly member?: string | undefined;
}

/** The raw keys of a watchlist, for lookups (a set, or the watchlist's index). */
export interface WatchedKeys {
  has(raw: string): boolean;
  readonly size: number;
}
