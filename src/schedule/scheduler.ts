import { getMaxListeners, setMaxListeners } from 'node:events';
import { createTask, type ScheduledTask } from 'node-cron';
import type { Logger } from 'pino';
import { nextSecondsOnlyMatch } from './cron.js';

/**
 * Why a job runs: its schedule (a tick, or the run at start), or asked between ticks
 * (Scheduler.runNow), for what has grown since the last tick.
 */
export type RunReason = 'tick' | 'asked';

/** A recurring job: `run` gets a signal that aborts when the scheduler stops, and why it runs. */
export interface ScheduledJob {
  readonly name: string;
  readonly cron: string;
  readonly run: (signal: AbortSignal, reason: RunReason) => Promise<void>;
  /** Whether to run once at start, before the first tick; asked when the scheduler starts (default: yes). */
  readonly runAtStart?: () => boolean;
}

export interface Scheduler {
  /** Starts every schedule, and runs each job once at once unless it says otherwise. */
  start(): void;
  /** Stops the schedules, aborts running jobs and waits for them to return. Idempotent. */
  stop(): Promise<void>;
  /**
   * When the job is next due, on the process clock (SchedulerClock.now, ms); null when not scheduled. Read on every served
   * request (Cache-Control), so it is worked out once per tick, not per call.
   */
  nextRunAt(name: string): number | null;
  /**
   * Runs a job now, between its ticks (reason 'asked'); if it is running, once more as soon
   * as that run ends (what it works on has grown meanwhile: a cluster replica's share after
   * a member left). Nothing when the scheduler is not running.
   */
  runNow(name: string): void;
}

export interface SchedulerClock {
  /** The process clock (monotonic, ms): what nextRunAt answers in. */
  readonly now: () => number;
  /** The wall clock, ms since epoch: what cron expressions are read against. */
  readonly wall: () => number;
}

/** A sleep is cut into parts of at most this, each checking whether the wall clock stepped. */
const MAX_SLEEP_MS = 60_000;
/** Wall and process clock parting by more than this while a timer slept: the wall clock stepped. */
const STEP_TOLERANCE_MS = 1_000;

/**
 * The next wall time (ms) an expression matches after `wallNow`: worked out here for the
 * seconds-only expressions polls use, by node-cron for the rest (its tasks never started:
 * they only read the expressions).
 */
function createExpressionReader(): { nextMatch(job: ScheduledJob, wallNow: number): number | undefined; destroy(): Promise<void> } {
  const expressions = new Map<string, ScheduledTask>();
  return {
    nextMatch(job, wallNow) {
      const own = nextSecondsOnlyMatch(job.cron, wallNow);
      if (own !== undefined) return own;
      let task = expressions.get(job.name);
      if (task === undefined) {
        task = createTask(job.cron, () => undefined, { name: job.name });
        expressions.set(job.name, task);
      }
      return task.getNextRuns(1)[0]?.getTime();
    },
    async destroy() {
      const tasks = [...expressions.values()];
      expressions.clear();
      await Promise.all(tasks.map(async (task) => task.destroy()));
    },
  };
}

/**
 * Runs jobs one run at a time each. A tick that comes while a tick's run is going is not run
 * again (that run is the answer). A run asked for comes once after the run going on; so
 * does a tick that comes while an asked run goes (an asked run does only part of a tick's
 * work). Several of them waiting make one run, a tick's if any was a tick.
 */
function createOneAtATime(logger: Logger, signal: AbortSignal): { run(job: ScheduledJob, reason?: RunReason): Promise<void>; settled(): Promise<void> } {
  const running = new Map<string, { readonly done: Promise<void>; readonly reason: RunReason }>();
  const waiting = new Map<string, RunReason>();
  const run = (job: ScheduledJob, reason: RunReason = 'tick'): Promise<void> => {
    const current = running.get(job.name);
    if (current) {
      if (reason === 'asked' || current.reason === 'asked') waiting.set(job.name, waiting.get(job.name) === 'tick' ? 'tick' : reason);
      else logger.debug({ job: job.name }, 'previous run still going; tick skipped');
      return current.done;
    }
    const done = job
      .run(signal, reason)
      .catch((err: unknown) => logger.error({ err, job: job.name }, 'scheduled job threw'))
      .finally(() => {
        running.delete(job.name);
        const next = waiting.get(job.name);
        waiting.delete(job.name);
        if (next !== undefined && !signal.aborted) void run(job, next);
      });
    running.set(job.name, { done, reason });
    return done;
  };
  return {
    run,
    settled: () => Promise.all([...running.values()].map((r) => r.done)).then(() => undefined),
  };
}

/**
 * Cron schedules, one run at a time per job: a tick that comes while the previous tick's run
 * is still going is skipped (and logged at debug), never queued.
 *
 * node-cron reads the expressions (the next matching wall time); the timers are ours, on the
 * process's monotonic clock. node-cron's own timer is armed by the wall clock, so a step
 * back of an hour (NTP, a VM restored) stalled polling for that hour. Here the wait for the
 * next run is measured once, when it is armed, then slept on setTimeout's monotonic clock;
 * a step while sleeping moves the plan to the next match of the new wall time, so after a
 * step either way the next run comes within one period.
 */
export function createScheduler(jobs: readonly ScheduledJob[], logger: Logger, clock: SchedulerClock = { now: Date.now, wall: Date.now }): Scheduler {
  const controller = new AbortController();
  // Every request in flight or waiting for its upstream's budget listens to it: eight wallet
  // batches, a queue poll and a lag check are past Node's default warning at ten.
  setMaxListeners(Math.max(getMaxListeners(controller.signal), 100), controller.signal);
  const expressions = createExpressionReader();
  const timers = new Map<string, NodeJS.Timeout>();
  const runner = createOneAtATime(logger, controller.signal);
  /** Each scheduled job's next run on the process clock, updated when it is armed. */
  const nextRuns = new Map<string, number | null>();
  let started = false;
  let stopped = false;

  const runJob = (job: ScheduledJob): Promise<void> => runner.run(job);

  /** Arms the job's next run: the next match after the wall time now, waited for on the process clock. */
  const arm = (job: ScheduledJob): void => {
    if (stopped) return;
    const wallNow = clock.wall();
    const nextWall = expressions.nextMatch(job, wallNow);
    if (nextWall === undefined) {
      nextRuns.set(job.name, null);
      return;
    }
    const due = clock.now() + Math.max(0, nextWall - wallNow);
    nextRuns.set(job.name, due);
    sleepUntil(job, due, wallNow - clock.now());
  };

  /** Sleeps until `due` (process clock) in parts; `offset` is wall minus process time when armed. */
  const sleepUntil = (job: ScheduledJob, due: number, offset: number): void => {
    const timer = setTimeout(
      () => {
        timers.delete(job.name);
        if (stopped) return;
        if (clock.now() >= due) {
          arm(job);
          void runJob(job);
        } else if (Math.abs(clock.wall() - clock.now() - offset) > STEP_TOLERANCE_MS) {
          logger.warn({ job: job.name, stepMs: Math.round(clock.wall() - clock.now() - offset) }, 'the wall clock stepped; schedule re-read from the new time');
          arm(job);
        } else sleepUntil(job, due, offset);
      },
      Math.min(MAX_SLEEP_MS, Math.max(0, due - clock.now())),
    );
    timers.set(job.name, timer);
  };

  return {
    start() {
      if (stopped || started) return;
      started = true;
      for (const job of jobs) {
        arm(job);
        if (job.runAtStart?.() !== false) void runJob(job);
      }
    },
    async stop() {
      if (stopped) return runner.settled();
      stopped = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      nextRuns.clear();
      await expressions.destroy();
      controller.abort(new Error('scheduler stopped'));
      await runner.settled();
    },
    nextRunAt(name) {
      return nextRuns.get(name) ?? null;
    },
    runNow(name) {
      const job = jobs.find((j) => j.name === name);
      if (job !== undefined && started && !stopped) void runner.run(job, 'asked');
    },
  };
}
