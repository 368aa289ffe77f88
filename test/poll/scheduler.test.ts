import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createProcessClock } from '../../src/domain/clock.js';
import { createScheduler, type RunReason, type ScheduledJob } from '../../src/schedule/scheduler.js';
import { createLogSink } from '../helpers/log.js';

/** A job whose runs last until the test releases them, counting how often it started. */
function controlledJob(name: string, cron: string) {
  let releaseRun: (() => void) | undefined;
  const signals: AbortSignal[] = [];
  const reasons: RunReason[] = [];
  const job: ScheduledJob = {
    name,
    cron,
    run(signal, reason) {
      signals.push(signal);
      reasons.push(reason);
      return new Promise<void>((resolve) => {
        releaseRun = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
    },
  };
  return {
    job,
    runs: () => signals.length,
    signals,
    reasons,
    release() {
      releaseRun?.();
      releaseRun = undefined;
    },
  };
}

const skipped = (log: ReturnType<typeof createLogSink>) => log.lines().filter((l) => l['msg'] === 'previous run still going; tick skipped').length;

describe('scheduler', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-23T12:00:00.200Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs each job once at start, then on its schedule', async () => {
    const log = createLogSink();
    const queue = controlledJob('queue_sizes', '* * * * * *');
    const scheduler = createScheduler([queue.job], log.logger);
    scheduler.start();
    expect(queue.runs()).toBe(1);
    queue.release();
    for (let second = 1; second <= 3; second += 1) {
      await vi.advanceTimersByTimeAsync(1_000);
      expect(queue.runs()).toBe(1 + second);
      queue.release();
    }
    expect(skipped(log)).toBe(0);
    await scheduler.stop();
  });

  it('skips a tick that comes while the previous run is still going, never queueing it', async () => {
    const log = createLogSink();
    const queue = controlledJob('queue_sizes', '* * * * * *');
    const scheduler = createScheduler([queue.job], log.logger);
    scheduler.start();
    // Three ticks pass while the first run is still going.
    await vi.advanceTimersByTimeAsync(3_000);
    expect(queue.runs()).toBe(1);
    expect(skipped(log)).toBe(3);
    // Once it ends, nothing that was skipped runs late: the next run is the next tick's.
    queue.release();
    await vi.advanceTimersByTimeAsync(10);
    expect(queue.runs()).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(queue.runs()).toBe(2);
    queue.release();
    await scheduler.stop();
  });

  it('runs a job asked for now once more after the run going on, however often it was asked', async () => {
    const log = createLogSink();
    const wallets = controlledJob('wallets', '0 0 * * * *');
    const scheduler = createScheduler([wallets.job], log.logger);
    scheduler.start();
    expect(wallets.runs()).toBe(1);
    // Asked twice while it runs (a replica's share grew, twice): one run after it, not two, not none.
    scheduler.runNow('wallets');
    scheduler.runNow('wallets');
    expect(wallets.runs()).toBe(1);
    wallets.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(wallets.runs()).toBe(2);
    wallets.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(wallets.runs()).toBe(2);
    // Asked when idle: at once.
    scheduler.runNow('wallets');
    expect(wallets.runs()).toBe(3);
    // Asked while running, then stopped: nothing more.
    scheduler.runNow('wallets');
    await scheduler.stop();
    expect(wallets.runs()).toBe(3);
  });

  it('runs a tick that comes while an asked run goes once after it, as a tick: an asked run does only part of its work', async () => {
    const log = createLogSink();
    const wallets = controlledJob('wallets', '*/10 * * * * *');
    const scheduler = createScheduler([wallets.job], log.logger);
    scheduler.start();
    wallets.release();
    await vi.advanceTimersByTimeAsync(0);
    scheduler.runNow('wallets');
    expect(wallets.reasons).toEqual(['tick', 'asked']);
    // Two ticks and another ask while the asked run goes: one run after it, a tick's.
    scheduler.runNow('wallets');
    await vi.advanceTimersByTimeAsync(20_000);
    expect(skipped(log)).toBe(0);
    wallets.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(wallets.reasons).toEqual(['tick', 'asked', 'tick']);
    // A tick while a tick's run goes is still skipped, and an ask then still waits for it.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(skipped(log)).toBe(1);
    scheduler.runNow('wallets');
    wallets.release();
    await vi.advanceTimersByTimeAsync(0);
    expect(wallets.reasons).toEqual(['tick', 'asked', 'tick', 'asked']);
    await scheduler.stop();
  });

  it('tells when a job is next due, and null for one it does not run', async () => {
    const log = createLogSink();
    const wallets = controlledJob('wallets', '*/30 * * * * *');
    const scheduler = createScheduler([wallets.job], log.logger);
    expect(scheduler.nextRunAt('wallets')).toBeNull();
    scheduler.start();
    expect(scheduler.nextRunAt('wallets')).toBe(Date.parse('2026-11-23T12:00:30.000Z'));
    expect(scheduler.nextRunAt('queue_sizes')).toBeNull();
    wallets.release();
    // Worked out again at every tick, not frozen at the first.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(scheduler.nextRunAt('wallets')).toBe(Date.parse('2026-11-23T12:01:00.000Z'));
    wallets.release();
    await scheduler.stop();
    expect(scheduler.nextRunAt('wallets')).toBeNull();
  });

  it('keeps its rhythm when the wall clock steps back an hour, and forward: the next run within one period, ages on the process clock', async () => {
    const log = createLogSink();
    const clock = createProcessClock(Date.now, () => performance.now());
    const queue = controlledJob('queue_sizes', '*/5 * * * * *');
    const scheduler = createScheduler([queue.job], log.logger, { now: clock.now, wall: Date.now });
    scheduler.start();
    queue.release();
    await vi.advanceTimersByTimeAsync(4_800);
    expect(queue.runs()).toBe(2);
    queue.release();
    // NTP steps the wall clock back an hour, a second before the next tick.
    await vi.advanceTimersByTimeAsync(4_000);
    vi.setSystemTime(Date.now() - 3_600_000);
    expect(clock.wallOffset()).toBeCloseTo(-3_600_000, -1);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.runs()).toBe(3);
    queue.release();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.runs()).toBe(4);
    queue.release();
    // And forward: the rhythm goes on, and nextRunAt stays within one period of the process clock.
    vi.setSystemTime(Date.now() + 7_200_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.runs()).toBe(5);
    queue.release();
    expect((scheduler.nextRunAt('queue_sizes') ?? Infinity) - clock.now()).toBeLessThanOrEqual(5_000);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.runs()).toBe(6);
    queue.release();
    await scheduler.stop();
  });

  it('re-reads a long schedule when the wall clock steps while it sleeps', async () => {
    const log = createLogSink();
    const clock = createProcessClock(Date.now, () => performance.now());
    const hourly = controlledJob('hourly', '0 0 * * * *');
    const scheduler = createScheduler([hourly.job], log.logger, { now: clock.now, wall: Date.now });
    scheduler.start();
    hourly.release();
    // 12:00:00.200 now: due at 13:00, an hour of process time away. The wall clock steps forward 58 minutes.
    vi.setSystemTime(Date.now() + 58 * 60_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(log.lines().some((l) => l['msg'] === 'the wall clock stepped; schedule re-read from the new time')).toBe(true);
    expect(hourly.runs()).toBe(1);
    // 12:59:00.2 by the wall: 13:00 is a minute away, not the hour first planned.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(hourly.runs()).toBe(2);
    hourly.release();
    await scheduler.stop();
  });

  it('stop aborts the running jobs, waits for them, and runs nothing more', async () => {
    const log = createLogSink();
    const queue = controlledJob('queue_sizes', '* * * * * *');
    const scheduler = createScheduler([queue.job], log.logger);
    scheduler.start();
    // The run ends only when aborted: stop() resolving shows it aborted and waited.
    await scheduler.stop();
    expect(queue.signals[0]?.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(queue.runs()).toBe(1);
    // Idempotent, and a stopped scheduler does not start again.
    await scheduler.stop();
    scheduler.start();
    expect(queue.runs()).toBe(1);
  });

  it('logs a job that throws and keeps scheduling it', async () => {
    const log = createLogSink();
    let runs = 0;
    const scheduler = createScheduler(
      [
        {
          name: 'queue_sizes',
          cron: '* * * * * *',
          run: () => {
            runs += 1;
            return Promise.reject(new Error('boom'));
          },
        },
      ],
      log.logger,
    );
    scheduler.start();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(runs).toBe(3);
    expect(log.lines().filter((l) => l['msg'] === 'scheduled job threw')).toHaveLength(3);
    await scheduler.stop();
  });

  it('gives jobs a signal that takes a listener per request in flight without a warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const job = controlledJob('many', '0 0 0 1 1 *');
      const scheduler = createScheduler([job.job], createLogSink().logger);
      scheduler.start();
      const [signal] = job.signals;
      for (let i = 0; i < 40; i += 1) signal?.addEventListener('abort', () => undefined);
      await vi.advanceTimersByTimeAsync(0);
      vi.useRealTimers();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      job.release();
      await scheduler.stop();
    } finally {
      process.off('warning', onWarning);
    }
  });
});
