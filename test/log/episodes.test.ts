import { describe, expect, it } from 'vitest';
import { createEpisodeLog, EPISODE_REMINDER_MS } from '../../src/log/episodes.js';
import { createLogSink } from '../helpers/log.js';

describe('episode log', () => {
  it('says a failure once when it starts, again every ten minutes with the count, and once when it ends', () => {
    const log = createLogSink();
    let now = 0;
    const episodes = createEpisodeLog(log.logger, () => now);
    for (let i = 0; i < 100; i += 1) {
      episodes.failed('disk', { reason: 'read_only' }, 'could not write');
      now += 1_000;
    }
    expect(log.lines().map((l) => l['msg'])).toEqual(['could not write']);
    expect(episodes.failing('disk')).toBe(true);
    now = EPISODE_REMINDER_MS + 1;
    episodes.failed('disk', { reason: 'read_only' }, 'could not write');
    expect(log.lines().at(-1)).toMatchObject({ msg: 'could not write (still)', failuresSinceLastLine: 100, reason: 'read_only' });
    episodes.ok('disk', {}, 'writing again');
    episodes.ok('disk', {}, 'writing again');
    expect(log.lines().filter((l) => l['msg'] === 'writing again')).toEqual([expect.objectContaining({ failures: 101, level: 30 })]);
    expect(episodes.failing('disk')).toBe(false);
  });

  it('keeps episodes of different keys apart', () => {
    const log = createLogSink();
    const episodes = createEpisodeLog(log.logger, () => 0);
    episodes.failed('a', {}, 'a fails');
    episodes.failed('b', {}, 'b fails');
    episodes.failed('a', {}, 'a fails');
    episodes.ok('b', {}, 'b works');
    expect(log.lines().map((l) => l['msg'])).toEqual(['a fails', 'b fails', 'b works']);
  });
});
