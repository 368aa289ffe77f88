import { getMaxListeners, setMaxListeners } from 'node:events';
import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';

/** A recurring job: `run` gets a signal that aborts when the scheduler stops. */
export interface ScheduledJob {
  readonly name: string;
  readonly cron: string;
  readonly run: (signal: AbortSignal) => Promise<void>;
  /** Whether to run once at start, before the first tick; asked when the scheduler starts (default: yes). */
  readonly runAtStart?: () => boolean;
}

export interface Scheduler {
  /** Starts every schedule, and runs each job once at once unless it says otherwise. */
  start(): void;
  /** Stops the schedules, aborts running jobs and waits for them to return. Idempotent. */
  stop(): Promise<void>;
  /**
   * When the job is next due, ms since epoch; null when not scheduled. Read on every served
   * request (Cache-Control), so it is worked out once per tick, not per call.
   */
  nextRunAt(name: string): number | null;
}

/**
 * node-cron schedules, one run at a time per job: a tick that comes while the previous run
 * is still going is skipped (and logged at debug), never queued.
 */
export function createScheduler(jobs: readonly ScheduledJob[], logger: Logger): Scheduler {
  const controller = new AbortController();
  // Every request in flight or waiting for its upstream's budget listens to it: eight wallet
  // batches, a queue poll and a lag check are past Node's default warning at ten.
  setMaxListeners(Math.max(getMaxListeners(controller.signal), 100), controller.signal);
  const tasks = new Map<string, ScheduledTask>();
  const running = new Map<string, Promise<void>>();
  /** Each scheduled job's next run, ms since epoch, updated at start and at every tick. */
  const nextRuns = new Map<string, number | null>();
  const noteNextRun = (name: string): void => {
    nextRuns.set(name, tasks.get(name)?.getNextRun()?.getTime() ?? null);
  };
  let started = false;
  let stopped = false;

  const runJob = (job: ScheduledJob): Promise<void> => {
    const current = running.get(job.name);
    if (current) {
      logger.debug({ job: job.name }, 'previous run still going; tick skipped');
      return current;
    }
    const run = job
      .run(controller.signal)
      .catch((err: unknown) => logger.error({ err, job: job.name }, 'scheduled job threw'))
      .finally(() => running.delete(job.name));
    running.set(job.name, run);
    return run;
  };

  return {
    start() {
      if (stopped || started) return;
      started = true;
      for (const job of jobs) {
        const task = createTask(
          job.cron,
          () => {
            noteNextRun(job.name);
            return runJob(job);
          },
          { name: job.name },
        );
        tasks.set(job.name, task);
        void task.start();
        noteNextRun(job.name);
        if (job.runAtStart?.() !== false) void runJob(job);
      }
    },
    async stop() {
      if (stopped) return Promise.all(running.values()).then(() => undefined);
      stopped = true;
      const stopping = [...tasks.values()];
      tasks.clear();
      nextRuns.clear();
      await Promise.all(stopping.map(async (task) => task.destroy()));
      controller.abort(new Error('scheduler stopped'));
      await Promise.all(running.values());
    },
    nextRunAt(name) {
      return nextRuns.get(name) ?? null;
    },
  };
}
