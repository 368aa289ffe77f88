import type { Logger } from 'pino';
import type { WatchedWallet } from '../domain/config.js';
import type { WalletRecord, WalletsSnapshot } from '../snapshot/types.js';
import type { UpstreamClient } from '../domain/upstream.js';
import { assembleWalletsSnapshot, matchWalletAnswer } from './wallet-mapping.js';

/** The batch size in force; halves on 414/431 and remembers it across cycles. */
export interface BatchSize {
  get(): number;
  shrink(): number;
}

export function createBatchSize(initial: number): BatchSize {
  let size = initial;
  return {
    get: () => size,
    shrink: () => (size = Math.max(1, Math.floor(size / 2))),
  };
}

export interface WalletPollDeps {
  readonly client: UpstreamClient;
  readonly logger: Logger;
  readonly now: () => number;
  readonly watchlist: readonly WatchedWallet[];
  readonly batchSize: BatchSize;
  readonly previous: () => WalletsSnapshot | null;
  readonly publish: (snapshot: WalletsSnapshot) => void;
  /**
   * Batches in flight at once (default 1). The upstream budget still sets the rate; more
   * than one keeps it busy while answers are on their way (walletConcurrency()).
   */
  readonly concurrency?: number;
}

/**
 * Batches to keep in flight for an upstream allowed `rps` requests per second: enough to
 * spend the whole budget while answers take up to half a second, at most 8. One at 1-2 rps.
 */
export function walletConcurrency(rps: number): number {
  return Math.min(8, Math.max(1, Math.ceil(rps / 2)));
}

export type WalletPollOutcome =
  { readonly ok: true; readonly fetched: number; readonly unknown: number; readonly failed: number } | { readonly ok: false; readonly error: string };

/** How often a long cycle reports its progress. */
const PROGRESS_EVERY_MS = 10_000;

/**
 * One wallet cycle: every watched address in batches; results matched by address;
 * addresses an answer left out are asked once more before they count as unknown (an
 * upstream may cap a batch silently, as toncenter does at 1000). A failed batch keeps its
 * wallets' last values while the others update; wallets that left the watchlist go.
 */
export async function pollWallets(deps: WalletPollDeps, signal?: AbortSignal): Promise<WalletPollOutcome> {
  const { client, logger, now, batchSize } = deps;
  const started = now();
  const records = new Map<string, WalletRecord>();
  const failed = new Set<string>();
  let lastError = '';
  let lastProgressAt = started;
  let batchesDone = 0;

  /**
   * Runs `addresses` through in batches, `concurrency` at a time; returns the ones the
   * answers left out. A batch refused as too long goes back to be split at the new size.
   */
  const runPass = async (addresses: readonly string[], pass: 1 | 2): Promise<string[] | 'aborted'> => {
    const missing: string[] = [];
    const refused: string[][] = [];
    let offset = 0;
    let aborted = false;
    const nextBatch = (): string[] | null => {
      const size = batchSize.get();
      const again = refused.shift();
      if (again !== undefined) {
        if (again.length > size) refused.unshift(again.slice(size));
        return again.slice(0, size);
      }
      if (offset >= addresses.length) return null;
      const batch = addresses.slice(offset, offset + size);
      offset += batch.length;
      return batch;
    };
    const worker = async (): Promise<void> => {
      for (let batch = nextBatch(); batch !== null && !aborted; batch = nextBatch()) {
        const size = batch.length;
        const result = await client.fetchWalletStates(batch, signal);
        if (!result.ok) {
          if (result.error.code === 'aborted') {
            aborted = true;
            return;
          }
          if (result.error.code === 'uri_too_long' && size > 1) {
            // Batches in flight together are refused together: shrink once per size.
            if (batchSize.get() >= size) {
              const smaller = batchSize.shrink();
              logger.warn(
                { upstream: result.error.details.upstream, from: size, to: smaller },
                'upstream refused the URL length; walletBatchSize shrunk and remembered',
              );
            }
            refused.push(batch);
            continue;
          }
          lastError = `${result.error.code}: ${result.error.message}`;
          for (const raw of batch) failed.add(raw);
          logger.warn(
            { upstream: result.error.details.upstream, code: result.error.code, batch: size, err: result.error.message },
            "wallet batch failed; keeping those wallets' last values",
          );
        } else {
          const matched = matchWalletAnswer(batch, result.value.value, result.value, deps.previous()?.wallets, records);
          if (pass === 1) missing.push(...matched.missing);
          else {
            // Left out twice: the upstream does not know the account.
            for (const raw of matched.missing) {
              records.set(raw, {
                raw,
                state: null,
                addressBook: null,
                metadata: undefined,
                fetchedAt: result.value.fetchedAt,
                upstream: result.value.upstream,
              });
            }
          }
        }
        batchesDone += 1;
        if (now() - lastProgressAt >= PROGRESS_EVERY_MS) {
          lastProgressAt = now();
          const done = records.size + failed.size;
          const total = deps.watchlist.length;
          const rate = done / Math.max(1, now() - started);
          const batchesTotal = batchesDone + Math.ceil((addresses.length - offset) / batchSize.get());
          logger.info(
            { batchesDone, batchesTotal, done, total, pass, etaSeconds: Math.round((total - done) / Math.max(rate, 1e-9) / 1000) },
            'wallet cycle in progress',
          );
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, deps.concurrency ?? 1) }, worker));
    return aborted ? 'aborted' : missing;
  };

  const first = await runPass(
    deps.watchlist.map((w) => w.raw),
    1,
  );
  if (first === 'aborted') return { ok: false, error: 'aborted' };
  if (first.length > 0) {
    logger.debug({ count: first.length }, 'addresses missing from the answers; asking once more');
    if ((await runPass(first, 2)) === 'aborted') return { ok: false, error: 'aborted' };
  }
  if (records.size === 0 && deps.watchlist.length > 0) return { ok: false, error: lastError || 'no wallet answered' };

  deps.publish(assembleWalletsSnapshot(deps.watchlist, records, deps.previous()?.wallets, now()));
  const unknown = [...records.values()].filter((r) => r.state === null).length;
  const outcome = { ok: true, fetched: records.size - unknown, unknown, failed: failed.size } as const;
  logger.debug({ ...outcome, seconds: (now() - started) / 1000 }, 'wallet cycle done');
  return outcome;
}
