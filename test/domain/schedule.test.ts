import { createTask } from 'node-cron';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { lagCheckCron } from '../../src/features/lag-check/config.js';
import { nextSecondsOnlyMatch } from '../../src/schedule/cron.js';
import { createRandom } from '../../src/sim/random.js';

afterEach(() => {
  vi.useRealTimers();
});

/** node-cron's next run after `wallMs` (it reads the time from Date). */
function nodeCronNext(cron: string, wallMs: number): number | undefined {
  vi.useFakeTimers({ now: wallMs });
  return createTask(cron, () => undefined)
    .getNextRuns(1)[0]
    ?.getTime();
}

describe('nextSecondsOnlyMatch', () => {
  const expressions = [
    '* * * * * *',
    '*/1 * * * * *',
    '*/5 * * * * *',
    '*/7 * * * * *',
    '*/30 * * * * *',
    '*/59 * * * * *',
    '0 * * * * *',
    '45 * * * * *',
    '59 * * * * *',
  ];

  it("gives node-cron's next run for every seconds-only expression, at any millisecond of a minute", () => {
    const random = createRandom(11);
    for (const cron of expressions) {
      for (let i = 0; i < 150; i += 1) {
        // Spread over decades, with whole seconds and the last millisecond of a second among them.
        const base = 1_500_000_000_000 + random.int(0, 400_000_000) * 1000;
        const wall = base + [0, 999, 1, random.int(0, 999)][i % 4]!;
        expect(nextSecondsOnlyMatch(cron, wall), `${cron} after ${new Date(wall).toISOString()}`).toBe(nodeCronNext(cron, wall));
      }
    }
  });

  it("gives the lag check's every-minute expression, and leaves anything else to node-cron", () => {
    expect(nextSecondsOnlyMatch(lagCheckCron(60) as string, Date.UTC(2026, 10, 26, 8, 0, 59, 500))).toBe(Date.UTC(2026, 10, 26, 8, 1, 0));
    for (const other of ['0 */2 * * * *', '*/5 * * * *', '0 0 * * * *', '*/5 * * * 1 *', '1,2 * * * * *', '1-5 * * * * *', '60 * * * * *', '*/0 * * * * *']) {
      expect(nextSecondsOnlyMatch(other, Date.now()), other).toBeUndefined();
    }
  });
});
