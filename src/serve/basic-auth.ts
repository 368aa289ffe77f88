import { createHash } from 'node:crypto';

/**
 * HTTP basic auth against bcrypt hashes (the web config's basic_auth_users), as
 * exporter-toolkit checks it, and hard to lock anyone out of:
 * - bcrypt costs tens of milliseconds a check, so outcomes are cached: a scrape every 15 s
 *   pays it once. Successes and failures are kept apart, so no number of wrong guesses
 *   evicts a credential that succeeded;
 * - the checks that do run go to a worker thread (password-checks.ts), one at a time; past
 *   MAX_WAITING_CHECKS queued ones the answer is "busy", not a growing queue;
 * - each client address may have FAILURE_BURST uncached checks fail at once, then one a
 *   second (FAILURE_REFILL_MS), and at most MAX_WAITING_PER_CLIENT waiting: past that its
 *   uncached checks are "throttled" (429) without running bcrypt. A check counts as a
 *   failure from when it is queued (a flood fills no queue before its first answers come
 *   back) and is given back if it succeeds. A cached success always passes;
 * - an unknown user is checked against a real hash anyway, so timing does not tell a wrong
 *   user from a wrong password.
 */

/** The outcome of a check: allowed, refused, too many checks queued, or too many failures from this client. */
export type AuthVerdict = boolean | 'busy' | { readonly throttled: number };

export interface BasicAuth {
  /**
   * Checks an Authorization header from `client` (its address) against `users` (user →
   * bcrypt hash). Synchronous when the outcome is cached, the header is missing or
   * malformed, or the client is throttled; a promise when bcrypt runs.
   */
  check(users: Readonly<Record<string, string>>, authorization: string | undefined, client?: string): AuthVerdict | Promise<AuthVerdict>;
}

/** Successes remembered; only other successes push one out (a guess cannot make one). */
export const CACHED_SUCCESSES = 256;
/** Failures remembered; the oldest failure is dropped past this. */
export const CACHED_FAILURES = 1024;
/** bcrypt checks waiting for their turn before new ones are answered "busy". */
export const MAX_WAITING_CHECKS = 64;
/** Uncached failed checks a client address may make at once. */
export const FAILURE_BURST = 10;
/** One more failed check allowed per this many ms. */
export const FAILURE_REFILL_MS = 1_000;
/** Uncached checks one client address may have waiting at once. */
export const MAX_WAITING_PER_CLIENT = 4;
/** Client addresses whose failures are remembered; the fullest buckets are forgotten first. */
const MAX_TRACKED_CLIENTS = 10_000;

type Compare = (password: string, hash: string) => Promise<boolean>;

/** `compare` is bcrypt's (password-checks.ts: a worker thread); `now` the process clock. */
export function createBasicAuth(compare: Compare, now: () => number = Date.now): BasicAuth {
  const successes = createBoundedSet(CACHED_SUCCESSES);
  const failures = createBoundedSet(CACHED_FAILURES);
  const throttle = createFailureThrottle(now);
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  /** Uncached checks waiting, by client address. */
  const waitingFrom = new Map<string, number>();

  return {
    check(users, authorization, client = '') {
      const credentials = parseBasic(authorization);
      if (credentials === null) return false;
      const { user, password } = credentials;
      const known = Object.hasOwn(users, user);
      // An unknown user costs the same bcrypt as a known one: checked against a real hash, then refused.
      const hash = known ? users[user] : Object.values(users)[0];
      if (hash === undefined) return false;
      // The key is a digest: the caches hold no password, and finding one compares no secret byte by byte.
      const key = createHash('sha256').update(user).update('\0').update(hash).update('\0').update(password).digest('base64');
      if (successes.has(key)) return true;
      if (failures.has(key)) return false;
      const wait = throttle.waitMs(client);
      if (wait > 0 || (waitingFrom.get(client) ?? 0) >= MAX_WAITING_PER_CLIENT) return { throttled: Math.max(1, Math.ceil(wait / 1000)) };
      if (waiting >= MAX_WAITING_CHECKS) return 'busy';
      waiting += 1;
      waitingFrom.set(client, (waitingFrom.get(client) ?? 0) + 1);
      throttle.failed(client);
      const verdict = queue
        .then(() => compare(password, hash))
        .then(
          (ok) => {
            if (ok && known) {
              successes.add(key);
              throttle.givenBack(client);
              return true;
            }
            failures.add(key);
            return false;
          },
          () => false,
        );
      queue = verdict.finally(() => {
        waiting -= 1;
        const left = (waitingFrom.get(client) ?? 1) - 1;
        if (left === 0) waitingFrom.delete(client);
        else waitingFrom.set(client, left);
      });
      return verdict;
    },
  };
}

/** User and password of a `Basic` Authorization header; null when absent or malformed. */
export function parseBasic(authorization: string | undefined): { user: string; password: string } | null {
  if (authorization === undefined || authorization.length < 7) return null;
  if (authorization.slice(0, 6).toLowerCase() !== 'basic ') return null;
  const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** A set of at most `max` keys, the oldest dropped first. */
function createBoundedSet(max: number) {
  const keys = new Set<string>();
  return {
    has: (key: string): boolean => keys.has(key),
    add(key: string): void {
      keys.add(key);
      if (keys.size > max) keys.delete(keys.values().next().value as string);
    },
  };
}

/** A token bucket of failed checks per client address: FAILURE_BURST, refilled one per FAILURE_REFILL_MS. */
function createFailureThrottle(now: () => number) {
  /** When each client's bucket is full again (process clock); absent: full. */
  const fullAt = new Map<string, number>();
  const burstMs = FAILURE_BURST * FAILURE_REFILL_MS;
  return {
    /** How long `client` must wait before its next uncached check; 0: it may check now. */
    waitMs(client: string): number {
      const full = fullAt.get(client);
      if (full === undefined) return 0;
      // Tokens left = (burst − (full − now)) / refill; a check needs one.
      return Math.max(0, full - now() - (burstMs - FAILURE_REFILL_MS));
    },
    /** A check that counted as a failure succeeded: its token back. */
    givenBack(client: string): void {
      const full = fullAt.get(client);
      if (full !== undefined) fullAt.set(client, full - FAILURE_REFILL_MS);
    },
    failed(client: string): void {
      const at = now();
      const full = Math.max(fullAt.get(client) ?? at, at);
      fullAt.delete(client);
      fullAt.set(client, full + FAILURE_REFILL_MS);
      if (fullAt.size <= MAX_TRACKED_CLIENTS) return;
      for (const [tracked, until] of fullAt) {
        if (fullAt.size <= MAX_TRACKED_CLIENTS) break;
        if (until <= at || tracked !== client) fullAt.delete(tracked);
      }
    },
  };
}
