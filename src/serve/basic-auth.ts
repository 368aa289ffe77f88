import { createHash } from 'node:crypto';

/**
 * HTTP basic auth against bcrypt hashes (the web config's basic_auth_users), as
 * exporter-toolkit checks it:
 * - bcrypt costs tens of milliseconds a check, so each (user, hash, password) outcome is
 *   cached: a scrape every 15 s pays it once, not every time;
 * - an unknown user is checked against a real hash anyway, so timing does not tell a wrong
 *   user from a wrong password;
 * - checks that do run go one at a time (bcrypt is CPU work), and past MAX_WAITING_CHECKS
 *   queued ones the answer is "busy", not a growing queue.
 */

/** The outcome of a check: allowed, refused, or too many checks queued to take this one. */
export type AuthVerdict = boolean | 'busy';

export interface BasicAuth {
  /**
   * Checks an Authorization header against `users` (user → bcrypt hash). Synchronous when
   * the outcome is cached or the header is missing or malformed; a promise when bcrypt runs.
   */
  check(users: Readonly<Record<string, string>>, authorization: string | undefined): AuthVerdict | Promise<AuthVerdict>;
}

/** Outcomes remembered; the oldest is dropped past this. */
export const CACHED_OUTCOMES = 1024;
/** bcrypt checks waiting for their turn before new ones are answered "busy". */
export const MAX_WAITING_CHECKS = 64;

type Compare = (password: string, hash: string) => Promise<boolean>;

/** `compare` is bcrypt's (bcryptjs by default, loaded at the first check that needs it). */
export function createBasicAuth(compare: Compare = lazyBcrypt()): BasicAuth {
  const outcomes = new Map<string, boolean>();
  let queue: Promise<unknown> = Promise.resolve();
  let waiting = 0;

  function remember(key: string, ok: boolean): void {
    if (outcomes.size >= CACHED_OUTCOMES) {
      const oldest = outcomes.keys().next();
      if (oldest.done !== true) outcomes.delete(oldest.value);
    }
    outcomes.set(key, ok);
  }

  return {
    check(users, authorization) {
      const credentials = parseBasic(authorization);
      if (credentials === null) return false;
      const { user, password } = credentials;
      const known = Object.hasOwn(users, user);
      // An unknown user costs the same bcrypt as a known one: checked against a real hash, then refused.
      const hash = known ? users[user] : Object.values(users)[0];
      if (hash === undefined) return false;
      // The key is a digest: the cache holds no password, and finding it compares no secret byte by byte.
      const key = createHash('sha256').update(user).update('\0').update(hash).update('\0').update(password).digest('base64');
      const cached = outcomes.get(key);
      if (cached !== undefined) return cached && known;
      if (waiting >= MAX_WAITING_CHECKS) return 'busy';
      waiting++;
      const verdict = queue
        .then(() => compare(password, hash))
        .then(
          (ok) => {
            remember(key, ok);
            return ok && known;
          },
          () => false,
        );
      queue = verdict.finally(() => waiting--);
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

/**
 * bcryptjs's compare (constant-time over the hash), imported when first needed: a daemon
 * without basic auth never loads it.
 */
function lazyBcrypt(): Compare {
  let lib: Promise<{ compare: Compare }> | undefined;
  return (password, hash) => {
    lib ??= import('bcryptjs');
    return lib.then((bcrypt) => bcrypt.compare(password, hash));
  };
}
