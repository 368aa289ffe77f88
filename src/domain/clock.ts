/**
 * The process clock: ms since epoch as the wall clock read when the process started, then
 * advanced by the monotonic clock. Everything measured inside the process (ages, freshness,
 * `maxAgeSeconds`, Retry-After, budgets, schedules) uses it, so a wall clock step (NTP, a
 * VM restored) neither ages nor rejuvenates data. Wall time is for what leaves the process
 * (`@extra`, Last-Modified, metric timestamps, the persisted file): a process time `t` is
 * the wall time `t + wallOffset()`.
 */
export interface ProcessClock {
  /** Process time, whole ms; never goes back. */
  readonly now: () => number;
  /** Wall minus process time, ms, now: 0 until the wall clock steps or drifts. */
  readonly wallOffset: () => number;
}

export function createProcessClock(wall: () => number, monotonic: () => number): ProcessClock {
  const anchorWall = wall();
  const anchorMonotonic = monotonic();
  const now = (): number => Math.floor(anchorWall + (monotonic() - anchorMonotonic));
  return { now, wallOffset: () => wall() - now() };
}
