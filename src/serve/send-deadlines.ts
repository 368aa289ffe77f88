import type { ServerResponse } from 'node:http';

/**
 * Responses still being sent, each with its deadline; one sweep a second cuts those past
 * theirs (a timer per response would cost the hot paths, which finish at once).
 */
export function createSendDeadlines(now: () => number, expired: (res: ServerResponse) => void) {
  const deadlines = new Map<ServerResponse, number>();
  let sweep: NodeJS.Timeout | null = null;
  return {
    add(res: ServerResponse, deadline: number): void {
      deadlines.set(res, deadline);
      res.once('close', () => deadlines.delete(res));
      sweep ??= setInterval(() => {
        const at = now();
        for (const [pending, until] of deadlines) {
          if (at < until) continue;
          deadlines.delete(pending);
          expired(pending);
        }
        if (deadlines.size === 0 && sweep !== null) {
          clearInterval(sweep);
          sweep = null;
        }
      }, 1_000).unref();
    },
    close(): void {
      if (sweep !== null) clearInterval(sweep);
      sweep = null;
    },
  };
}
