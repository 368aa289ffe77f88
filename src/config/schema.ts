import { validate as isValidCron } from 'node-cron';
import * as z from 'zod';
import { DEFAULT_LISTEN_PORT, type UpstreamSettings } from '../domain/config.js';
import { perObject } from '../domain/per-object.js';
import { MAX_ADDRESSES_PER_REQUEST } from '../domain/wallet-state.js';
import { UPSTREAM_KINDS } from '../upstream/kinds.js';
import { addressString } from './address-schema.js';
import { clusterSchema } from './cluster-schema.js';
import { labelNameProblem } from './labels.js';
import type { ConfigPiece } from './piece.js';

/**
 * The configuration file's schema: the core's keys (listen, upstreams, retry, the watchlist,
 * the snapshot, cluster, log) and the features' (config/piece.ts), put together. Objects
 * are strict: an unknown key is an error, not silently ignored.
 */

/** A node-cron expression, seconds field allowed. */
export const cronExpression = z
  .string()
  .refine((expr) => isValidCron(expr), { message: 'not a valid cron expression (node-cron syntax, seconds field allowed)' });

/** Labels a user adds to a watched thing's series (a wallet, a validator): Prometheus label names, values up to 1024 characters. */
export function labelsSchema() {
  return z.record(z.string(), z.string().max(1024)).superRefine((record, ctx) => {
    for (const name of Object.keys(record)) {
      const problem = labelNameProblem(name);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  });
}

/** An upstream entry: what every kind has, and its kind's own keys (upstream/kinds.ts). */
function upstreamSchema(): z.ZodType<UpstreamSettings> {
  const upstreamCommon = {
    /** Used in logs and metric labels. */
    name: z.string().regex(/^[a-z0-9_-]+$/, 'must match [a-z0-9_-]+'),
    /** Request budget: requests per second (token bucket; see upstream/budget.ts for the burst). */
    rps: z.number().positive().max(10_000).default(1),
    /** Per-request timeout in milliseconds. */
    timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
  };

  /** `kind` defaults to the first kind (http), so configs written before liteservers existed read as they did. */
  const [defaultKind] = UPSTREAM_KINDS;
  return z.preprocess(
    (value) => (typeof value === 'object' && value !== null && !Array.isArray(value) && !('kind' in value) ? { ...value, kind: defaultKind?.kind } : value),
    z.discriminatedUnion('kind', UPSTREAM_KINDS.map((kind) => kind.schema(upstreamCommon)) as unknown as [z.ZodObject<{ kind: z.ZodLiteral<string> }>]),
  ) as unknown as z.ZodType<UpstreamSettings>;
}

/** `listen`: where the server listens and what clients may hold. */
function listenSchema() {
  return z
    .strictObject({
      host: z.string().min(1).default('0.0.0.0'),
      port: z.number().int().min(0).max(65_535).default(DEFAULT_LISTEN_PORT),
      /** /metrics requests answered at once; more get 503 (node_exporter's --web.max-requests). 0: no limit. */
      maxMetricsRequests: z.number().int().min(0).max(10_000).default(40),
      /** Connections open at once; at the limit the longest-idle one makes room, and a new one is refused only when all are mid-request. */
      maxConnections: z.number().int().min(1).max(1_000_000).default(1000),
      /** Connections one client address holds at once; default half of maxConnections. */
      maxConnectionsPerClient: z.number().int().min(1).max(1_000_000).optional(),
      /** A TLS handshake not finished within this many seconds is cut. */
      tlsHandshakeTimeoutSeconds: z.number().min(0.1).max(600).default(10),
      /** Host header values answered; others get 421 (DNS rebinding). Empty: every Host. */
      allowedHosts: z.array(z.string().min(1).max(255)).default([]),
      /** A response the client has not taken within this many seconds is cut (a slow reader holds memory). */
      sendTimeoutSeconds: z.number().int().min(1).max(3600).default(60),
      /** TLS, basic auth and headers, in exporter-toolkit's format; relative to this file. --web.config.file overrides it. */
      webConfigFile: z.string().min(1).optional(),
    })
    .prefault({});
}

/** `retry`: rounds through the upstreams before a poll counts as failed, and the backoff between them. */
function retrySchema() {
  return z
    .strictObject({
      /** Rounds through every upstream before a poll counts as failed. */
      attempts: z.number().int().min(1).max(10).default(3),
      /** First backoff delay; doubles each round, with full jitter. */
      baseDelayMs: z.number().int().min(0).max(60_000).default(500),
      /** Upper bound for one backoff delay, Retry-After included. */
      maxDelayMs: z.number().int().min(0).max(300_000).default(10_000),
    })
    .prefault({});
}

/** `snapshot`: where the features persist what they hold, and how old data may be served. */
function snapshotSchema() {
  return z
    .strictObject({
      /** Persisted after every successful poll, loaded at start. Relative to the config file. */
      file: z.string().min(1).default('./data/snapshot.json'),
      /** Older data is neither served nor exported. */
      maxAgeSeconds: z.number().int().min(1).default(300),
    })
    .prefault({});
}

/** `log`: the level. */
function logSchema() {
  return z
    .strictObject({
      level: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    })
    .prefault({});
}

/** Builds the config file's schema with the features' pieces (~20 ms; once per list of pieces). */
function buildConfigSchema(pieces: readonly ConfigPiece[]) {
  const merged = <K extends 'keys' | 'watchlistKeys' | 'watchlistFileKeys'>(key: K): Record<string, z.ZodType> =>
    Object.assign({}, ...pieces.map((piece) => piece[key] ?? {})) as Record<string, z.ZodType>;
  const schedules = Object.fromEntries(
    pieces.flatMap((piece) => Object.entries(piece.schedules ?? {})).map(([key, cron]) => [key, cronExpression.default(cron)]),
  );

  const watchlistEntrySchema = z.strictObject({
    address: addressString,
    name: z.string().min(1).max(128).optional(),
    labels: labelsSchema().default({}),
    /** Alert threshold in TON; exported as ton_wallet_min_balance_tons. */
    minBalanceTons: z.number().nonnegative().optional(),
    ...merged('watchlistKeys'),
  });
  /** A watchlist file: a path, or a path with the features' keys for each of its addresses. */
  const watchlistFileSchema = z.union([z.string().min(1), z.strictObject({ file: z.string().min(1), ...merged('watchlistFileKeys') })]);

  return z
    .strictObject({
      listen: listenSchema(),
      /** In priority order; a failing upstream fails over to the next. */
      upstreams: z
        .array(upstreamSchema())
        .min(1, 'at least one upstream is needed')
        .default([{ kind: 'http', name: 'toncenter', url: 'https://toncenter.com', rps: 1, timeoutMs: 10_000 }]),
      schedule: z.strictObject(schedules).prefault({}),
      retry: retrySchema(),
      /** Addresses per walletStates request; shrinks by itself on 414/431. */
      walletBatchSize: z.number().int().min(1).max(MAX_ADDRESSES_PER_REQUEST).default(1000),
      snapshot: snapshotSchema(),
      testnet: z.boolean().default(false),
      watchlist: z.array(watchlistEntrySchema).default([]),
      /** Files of one address per line, optional ",name"; '#' starts a comment. */
      watchlistFiles: z.array(watchlistFileSchema).default([]),
      cluster: clusterSchema,
      log: logSchema(),
      ...merged('keys'),
    })
    .superRefine((config, ctx) => {
      for (const piece of pieces) piece.refine?.(config, ctx);
      const seen = new Map<string, number>();
      config.upstreams.forEach((upstream, index) => {
        const first = seen.get(upstream.name);
        if (first !== undefined) {
          ctx.addIssue({ code: 'custom', path: ['upstreams', index, 'name'], message: `duplicate upstream name "${upstream.name}" (also upstreams.${first})` });
        }
        seen.set(upstream.name, index);
      });
    });
}

/** The config file's schema for the features' pieces, built on first use. */
export const configSchema = perObject((pieces: readonly ConfigPiece[]) => buildConfigSchema(pieces));

/** The config file as parsed, defaults applied. */
export type ConfigFile = z.output<ReturnType<typeof buildConfigSchema>>;
