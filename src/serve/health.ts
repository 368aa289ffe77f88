import { ageSeconds, isFresh } from '../snapshot/freshness.js';
import type { Snapshot } from '../snapshot/types.js';
import { jsonResponse, type ServedResponse } from './response.js';

export interface ReadinessInput {
  readonly snapshot: Snapshot;
  readonly now: number;
  readonly maxAgeSeconds: number;
  readonly watchlistSize: number;
  /** Parts of the persisted snapshot still being read from disk. */
  readonly loading: readonly string[];
}

/** Why the daemon is not ready to serve, or an empty list when it is. Pure. */
export function notReadyReasons(input: ReadinessInput): string[] {
  const { snapshot, now, maxAgeSeconds } = input;
  const reasons: string[] = [];
  const check = (query: string, fetchedAt: number | undefined): void => {
    if (fetchedAt === undefined) reasons.push(input.loading.includes(query) ? `${query}: loading the persisted snapshot` : `${query}: no snapshot yet`);
    else if (!isFresh(fetchedAt, now, maxAgeSeconds)) {
      reasons.push(`${query}: snapshot is ${Math.floor(ageSeconds(fetchedAt, now))} s old (maxAgeSeconds ${maxAgeSeconds})`);
    }
  };
  check('queue_sizes', snapshot.queueSizes?.fetchedAt);
  if (input.watchlistSize > 0) check('wallets', snapshot.wallets?.fetchedAt);
  return reasons;
}

export function serveReadyz(input: ReadinessInput): ServedResponse {
  const reasons = notReadyReasons(input);
  return reasons.length === 0 ? jsonResponse(200, { ready: true }) : jsonResponse(503, { ready: false, reasons });
}

export function serveHealthz(): ServedResponse {
  return jsonResponse(200, { status: 'ok' });
}
