import type { Logger } from 'pino';

/**
 * Logs a failure once per episode: when it starts (with its reason), then at most every
 * `everyMs` while it lasts (with how many failures since the last line), and once when it
 * ends. A dead upstream at 100,000 wallets fails ~100 batches a cycle; the counts are in
 * the metrics, and the log says what changed.
 */
export interface EpisodeLog {
  /** One failure of `key` (an upstream, a file): logged at warn when it starts an episode or `everyMs` after the last line. */
  failed(key: string, context: Readonly<Record<string, unknown>>, message: string): void;
  /** `key` works: if it was failing, the episode ends, logged once at info with how long it lasted and how many failures it saw. */
  ok(key: string, context: Readonly<Record<string, unknown>>, message: string): void;
  /** Whether `key` is in an episode now. */
  failing(key: string): boolean;
}

/** While an episode lasts, at most one line per this many ms (10 minutes). */
export const EPISODE_REMINDER_MS = 600_000;

export function createEpisodeLog(logger: Logger, now: () => number, everyMs = EPISODE_REMINDER_MS): EpisodeLog {
  const episodes = new Map<string, { startedAt: number; lastLineAt: number; failures: number; sinceLine: number }>();
  return {
    failed(key, context, message) {
      const at = now();
      const episode = episodes.get(key);
      if (episode === undefined) {
        episodes.set(key, { startedAt: at, lastLineAt: at, failures: 1, sinceLine: 0 });
        logger.warn(context, message);
        return;
      }
      episode.failures += 1;
      episode.sinceLine += 1;
      if (at - episode.lastLineAt < everyMs) return;
      logger.warn(
        { ...context, failuresSinceLastLine: episode.sinceLine, failingForSeconds: Math.round((at - episode.startedAt) / 1000) },
        `${message} (still)`,
      );
      episode.lastLineAt = at;
      episode.sinceLine = 0;
    },
    ok(key, context, message) {
      const episode = episodes.get(key);
      if (episode === undefined) return;
      episodes.delete(key);
      logger.info({ ...context, failures: episode.failures, failedForSeconds: Math.round((now() - episode.startedAt) / 1000) }, message);
    },
    failing: (key) => episodes.has(key),
  };
}
