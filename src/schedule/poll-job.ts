import type { EpisodeLog } from '../log/episodes.js';
import type { PollStatus } from './poll-status.js';
import type { RunReason, ScheduledJob } from './scheduler.js';

/** What a poll job records its runs in. */
export interface PollJobDeps {
  /** The process clock. */
  readonly now: () => number;
  readonly polls: PollStatus;
  readonly episodes: EpisodeLog;
  /** Told how long each poll took (tonwatch_poll_duration_seconds). */
  readonly metrics: { observePoll(query: string, durationSeconds: number): void };
}

export type PollResult = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * A scheduled poll of `query`: timed, its outcome recorded in the poll status and logged
 * once per episode of failures (unless it was cut short by a stop, or `due` said it was
 * not due).
 */
export function pollJob(
  deps: PollJobDeps,
  query: string,
  cron: string,
  options: { due?: (signal: AbortSignal) => Promise<boolean> },
  poll: (signal: AbortSignal, reason: RunReason) => Promise<PollResult>,
): ScheduledJob {
  const { now, polls, episodes } = deps;
  return {
    name: query,
    cron,
    async run(signal, reason) {
      if (options.due !== undefined && !(await options.due(signal))) return;
      const started = now();
      const outcome = await poll(signal, reason);
      deps.metrics.observePoll(query, (now() - started) / 1000);
      if (signal.aborted) return;
      if (!outcome.ok) {
        polls.failed(query);
        episodes.failed(query, { query, err: outcome.error }, 'poll failing; keeping the last snapshot');
        return;
      }
      episodes.ok(query, { query }, 'poll recovered');
      polls.succeeded(query, now());
    },
  };
}
