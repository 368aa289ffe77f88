/**
 * What the status page says of each upstream: the last successful request, the answers
 * of the last ten minutes by code (429s among them), from the same calls that feed
 * tonwatch_upstream_requests_total. Per-minute buckets keep it bounded.
 */

const WINDOW_MINUTES = 10;

export interface UpstreamHealthView {
  readonly lastSuccessAt: number | undefined;
  /** Answers of the last ten minutes by code (HTTP status or error class). */
  readonly recentCodes: Readonly<Record<string, number>>;
}

export interface UpstreamHealth {
  observe(upstream: string, code: string, now: number): void;
  view(upstream: string, now: number): UpstreamHealthView;
  /** Changes with every observation: a cache key. */
  readonly version: number;
}

export function createUpstreamHealth(): UpstreamHealth {
  const byUpstream = new Map<string, { lastSuccessAt: number | undefined; minutes: Map<number, Map<string, number>> }>();
  let version = 0;
  return {
    observe(upstream, code, now) {
      let entry = byUpstream.get(upstream);
      if (entry === undefined) byUpstream.set(upstream, (entry = { lastSuccessAt: undefined, minutes: new Map() }));
      if (code.startsWith('2') || code === 'ok') entry.lastSuccessAt = now;
      const minute = Math.floor(now / 60_000);
      let codes = entry.minutes.get(minute);
      if (codes === undefined) {
        entry.minutes.set(minute, (codes = new Map<string, number>()));
        for (const old of entry.minutes.keys()) if (old <= minute - WINDOW_MINUTES) entry.minutes.delete(old);
      }
      codes.set(code, (codes.get(code) ?? 0) + 1);
      version += 1;
    },
    view(upstream, now) {
      const entry = byUpstream.get(upstream);
      const recentCodes: Record<string, number> = {};
      const minute = Math.floor(now / 60_000);
      for (const [at, codes] of entry?.minutes ?? []) {
        if (at <= minute - WINDOW_MINUTES) continue;
        for (const [code, n] of codes) recentCodes[code] = (recentCodes[code] ?? 0) + n;
      }
      return { lastSuccessAt: entry?.lastSuccessAt, recentCodes };
    },
    get version() {
      return version;
    },
  };
}
