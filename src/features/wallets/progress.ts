import type { Logger } from 'pino';

/** How often a long wallet cycle reports its progress. */
export const PROGRESS_EVERY_MS = 10_000;

export interface CycleProgress {
  /** One batch answered (or failed); logs at most once per PROGRESS_EVERY_MS. */
  batchDone(counts: { readonly done: number; readonly batchesLeft: number; readonly pass: number }): void;
  /** Wallets joined the cycle (taken over from a member that left). */
  grew(count: number): void;
}

/** Logs `wallet cycle in progress` with counts and an estimate of the time left, for cycles of many batches. */
export function createCycleProgress(options: { logger: Logger; now: () => number; total: number }): CycleProgress {
  const { logger, now } = options;
  let { total } = options;
  const started = now();
  let lastReportAt = started;
  let batchesDone = 0;
  return {
    batchDone({ done, batchesLeft, pass }) {
      batchesDone += 1;
      const at = now();
      if (at - lastReportAt < PROGRESS_EVERY_MS) return;
      lastReportAt = at;
      const perMs = done / Math.max(1, at - started);
      const etaSeconds = Math.round((total - done) / Math.max(perMs, 1e-9) / 1000);
      logger.info({ batchesDone, batchesTotal: batchesDone + batchesLeft, done, total, pass, etaSeconds }, 'wallet cycle in progress');
    },
    grew(count) {
      total += count;
    },
  };
}
