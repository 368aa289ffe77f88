import type { Logger } from 'pino';
import type { WatchedWallet } from '../../domain/config.js';
import type { UpstreamClient } from '../../domain/upstream.js';
import type { WalletRecord } from '../../accounts/types.js';
import type { WalletsSnapshot } from './types.js';
import type { Interning } from '../../domain/interning.js';
import type { EpisodeLog } from '../../log/episodes.js';
import { createBatchQueue, type BatchSize } from '../../accounts/batches.js';
import { createCycleProgress, type CycleProgress } from './progress.js';
import { matchWalletAnswer } from '../../accounts/wallet-mapping.js';
import { assembleWalletsSnapshot } from './assemble.js';
import { createTakeover, type Takeover } from './takeover.js';

export interface WalletPollDeps {
  readonly client: UpstreamClient;
  readonly logger: Logger;
  readonly now: () => number;
  readonly watchlist: readonly WatchedWallet[];
  readonly batchSize: BatchSize;
  readonly previous: () => WalletsSnapshot | null;
  readonly publish: (snapshot: WalletsSnapshot) => void | Promise<void>;
  /**
   * Batches in flight at once (default 1). The upstream budget still sets the rate; more
   * than one keeps it busy while answers are on their way (walletConcurrency()).
   */
  readonly concurrency?: number;
  /** Records fetched at or after this time are served now: an older state than theirs is not applied. */
  readonly heldFrom?: () => number;
  /** Told of an answer holding states older than those served, which were not applied. */
  readonly stale?: (upstream: string) => void;
  /** Failed batches are logged once per episode. */
  readonly episodes?: EpisodeLog;
  /** Repeating values of the states kept, one copy each (for as long as the poll keeps states). */
  readonly interning?: Interning;
  /** Whether a watched address is still this poll's to ask, checked as its batch is cut (default: all are, to the cycle's end). */
  readonly stillOwned?: (raw: string) => boolean;
  /** Wallets that joined this poll's share since it began, each once: asked first, and published once answered (takeover.ts). */
  readonly gained?: () => readonly WatchedWallet[];
}

export type WalletPollOutcome =
  { readonly ok: true; readonly fetched: number; readonly unknown: number; readonly failed: number } | { readonly ok: false; readonly error: string };

/** An address an answer left out, with that answer's time and source. */
interface LeftOut {
  readonly raw: string;
  readonly fetchedAt: number;
  readonly upstream: string;
}

/** What one cycle has gathered so far, shared by its passes and their batches. */
interface Cycle {
  readonly deps: WalletPollDeps;
  readonly signal: AbortSignal | undefined;
  readonly progress: CycleProgress;
  /** Found accounts, and (after the second pass) unknown ones, by raw address. */
  readonly records: Map<string, WalletRecord>;
  /** Addresses whose batch failed: they keep their last values. */
  readonly failed: Set<string>;
  /** walletStates requests of this cycle that were answered, refused as too long, and failed (logged at its end). */
  readonly batches: { answered: number; refused: number; failed: number };
  /** The last failed batch's error, for the cycle's log line. */
  lastError: { upstream: string; code: string; message: string } | null;
  /** Wallets taken over while the cycle runs (a cluster member left). */
  readonly takeover: Takeover | null;
}

/**
 * One wallet cycle: every watched address in batches; results matched by address;
 * addresses an answer left out are asked once more before they count as unknown (an
 * upstream may cap a batch silently, as toncenter does at 1000). A failed batch keeps its
 * wallets' last values while the others update; wallets that left the watchlist go.
 */
export async function pollWallets(deps: WalletPollDeps, signal?: AbortSignal): Promise<WalletPollOutcome> {
  const { logger, now, watchlist } = deps;
  const started = now();
  const progress = createCycleProgress({ logger, now, total: watchlist.length });
  const records = new Map<string, WalletRecord>();
  const failed = new Set<string>();
  const { gained, previous, publish } = deps;
  const takeover = gained ? createTakeover({ logger, now, gained, previous, publish, records, failed, joined: (count) => progress.grew(count) }) : null;
  const cycle: Cycle = { deps, signal, progress, records, failed, batches: { answered: 0, refused: 0, failed: 0 }, lastError: null, takeover };

  const leftOut = await askInBatches(
    cycle,
    watchlist.map((w) => w.raw),
    1,
  );
  if (leftOut === 'aborted') return { ok: false, error: 'aborted' };
  if (leftOut.length > 0) {
    logger.debug({ count: leftOut.length }, 'addresses missing from the answers; asking once more');
    const leftOutTwice = await askInBatches(
      cycle,
      leftOut.map((l) => l.raw),
      2,
    );
    if (leftOutTwice === 'aborted') return { ok: false, error: 'aborted' };
    for (const unknown of leftOutTwice) cycle.records.set(unknown.raw, unknownAccount(unknown));
  }
  logBatchFailures(cycle);
  // No batch answered; a cycle whose every wallet went to members that joined asked none.
  if (cycle.records.size === 0 && cycle.lastError !== null) {
    return { ok: false, error: `${cycle.lastError.code}: ${cycle.lastError.message} (${cycle.lastError.upstream})` };
  }

  const joined = takeover?.joined ?? [];
  await deps.publish(assembleWalletsSnapshot(joined.length === 0 ? watchlist : [...watchlist, ...joined], cycle.records, deps.previous()?.wallets, now()));
  takeover?.end();
  let unknown = 0;
  for (const record of cycle.records.values()) if (record.state === null) unknown += 1;
  const outcome = { ok: true, fetched: cycle.records.size - unknown, unknown, failed: cycle.failed.size } as const;
  logger.debug({ ...outcome, batches: cycle.batches.answered, refusedBatches: cycle.batches.refused, seconds: (now() - started) / 1000 }, 'wallet cycle done');
  return outcome;
}

const BATCH_EPISODE = 'wallet_batches';

/**
 * A cycle's failed batches, once per episode: the cycle that starts one says so, cycles
 * that go on failing say so every EPISODE_REMINDER_MS, the first cycle without a failed
 * batch ends it. Each batch's failure is in tonwatch_upstream_requests_total.
 */
function logBatchFailures(cycle: Cycle): void {
  const { episodes, logger } = cycle.deps;
  const { lastError, batches } = cycle;
  if (lastError === null) {
    episodes?.ok(BATCH_EPISODE, { batches: batches.answered }, 'wallet batches answered again');
    return;
  }
  const context = { upstream: lastError.upstream, code: lastError.code, err: lastError.message, failedBatches: batches.failed, wallets: cycle.failed.size };
  const message = "wallet batches failing; keeping those wallets' last values";
  if (episodes) episodes.failed(BATCH_EPISODE, context, message);
  else logger.warn(context, message);
}

/** Left out of two answers: the upstream does not know the account. */
function unknownAccount(leftOut: LeftOut): WalletRecord {
  return { raw: leftOut.raw, state: null, addressBook: null, metadata: undefined, fetchedAt: leftOut.fetchedAt, upstream: leftOut.upstream };
}

/**
 * One pass: `addresses` in batches, `concurrency` batches in flight; returns the addresses
 * the answers left out, or 'aborted'. A batch refused as too long goes back to the queue,
 * to be split at the new size.
 */
async function askInBatches(cycle: Cycle, addresses: readonly string[], pass: number): Promise<LeftOut[] | 'aborted'> {
  const { stillOwned } = cycle.deps;
  const { takeover } = cycle;
  const first = pass === 1 && takeover !== null ? () => takeover.first() : undefined;
  const queue = createBatchQueue(addresses, cycle.deps.batchSize, { ...(stillOwned && { wanted: stillOwned }), ...(first && { first }) });
  const leftOut: LeftOut[] = [];
  let aborted = false;
  const worker = async (): Promise<void> => {
    for (let batch = await queue.next(); batch !== null; batch = await queue.next()) {
      if (aborted) {
        // Cut while another batch found the cycle stopped: not asked.
        cycle.deps.batchSize.untried(batch.length);
        return;
      }
      const answered = await askBatch(cycle, batch);
      if (answered === 'aborted') {
        aborted = true;
        return;
      }
      if (answered === 'refused') {
        queue.putBack(batch);
        continue;
      }
      leftOut.push(...answered);
      await cycle.takeover?.done(batch);
      cycle.progress.batchDone({ done: cycle.records.size + cycle.failed.size, batchesLeft: queue.remaining(), pass });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, cycle.deps.concurrency ?? 1) }, worker));
  return aborted ? 'aborted' : leftOut;
}

/**
 * One walletStates request: its accounts go into the cycle's records, or its addresses into
 * the failed set. Returns what the answer left out; 'refused' when the upstream found the
 * URL too long (the batch size looks for a smaller one); 'aborted' when the cycle was stopped.
 */
async function askBatch(cycle: Cycle, batch: readonly string[]): Promise<LeftOut[] | 'refused' | 'aborted'> {
  const { client, logger, batchSize } = cycle.deps;
  const result = await client.fetchWalletStates(batch, cycle.signal).catch((error: unknown) => {
    batchSize.untried(batch.length);
    throw error;
  });
  if (result.ok) {
    cycle.batches.answered += 1;
    const wasSettled = batchSize.settled;
    batchSize.accepted(batch.length);
    if (!wasSettled && batchSize.settled)
      logger.info({ upstream: result.value.upstream, batchSize: batchSize.get() }, 'largest walletStates batch that fits found; remembered');
    const { fetchedAt, upstream } = result.value;
    const meta = { fetchedAt, upstream, heldFrom: cycle.deps.heldFrom?.(), interning: cycle.deps.interning };
    const matched = matchWalletAnswer(batch, result.value.value, meta, cycle.deps.previous()?.wallets, cycle.records);
    if (matched.older > 0) {
      cycle.deps.stale?.(upstream);
      logger.debug({ upstream, older: matched.older }, 'wallet states older than those served; not applied');
    }
    return matched.missing.map((raw) => ({ raw, fetchedAt, upstream }));
  }
  const { error } = result;
  if (error.code === 'uri_too_long' && batch.length > 1) {
    cycle.batches.refused += 1;
    // Batches in flight together are refused together: say so once per size.
    const before = batchSize.get();
    const next = batchSize.refused(batch.length);
    if (next !== before) {
      logger.warn(
        { upstream: error.details.upstream, refused: batch.length, next, settled: batchSize.settled },
        'upstream refused the URL length; looking for the largest batch that fits, and remembering it',
      );
    }
    return 'refused';
  }
  // Failed otherwise: nothing learnt about its size.
  batchSize.untried(batch.length);
  if (error.code === 'aborted') return 'aborted';
  cycle.lastError = { upstream: error.details.upstream, code: error.code, message: error.message };
  cycle.batches.failed += 1;
  for (const raw of batch) cycle.failed.add(raw);
  logger.debug({ upstream: error.details.upstream, code: error.code, batch: batch.length, err: error.message }, 'wallet batch failed');
  return [];
}
