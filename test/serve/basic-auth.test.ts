import { describe, expect, it } from 'vitest';
import { CACHED_FAILURES, createBasicAuth, FAILURE_BURST, FAILURE_REFILL_MS, MAX_WAITING_CHECKS, parseBasic } from '../../src/serve/basic-auth.js';
import { basicAuth, testHash } from '../helpers/certs.js';

/** Basic auth against bcrypt hashes: cached outcomes, unknown users paying bcrypt too, a bounded queue. */

const USERS = { prometheus: testHash('s3cret'), grafana: testHash('other') };

/** bcryptjs's compare, counted. */
function countingCompare() {
  const calls: [string, string][] = [];
  return {
    calls,
    compare: async (password: string, hash: string) => {
      calls.push([password, hash]);
      const bcrypt = await import('bcryptjs');
      return bcrypt.compare(password, hash);
    },
  };
}

describe('basic auth', () => {
  it('allows the right password, refuses a wrong one, and pays bcrypt once per (user, hash, password)', async () => {
    const counted = countingCompare();
    const auth = createBasicAuth(counted.compare);
    expect(await auth.check(USERS, basicAuth('prometheus', 's3cret'))).toBe(true);
    // Cached: answered synchronously, no bcrypt.
    expect(auth.check(USERS, basicAuth('prometheus', 's3cret'))).toBe(true);
    expect(await auth.check(USERS, basicAuth('prometheus', 'wrong'))).toBe(false);
    expect(auth.check(USERS, basicAuth('prometheus', 'wrong'))).toBe(false);
    expect(counted.calls).toHaveLength(2);
    // A new hash for the user (a reload) is checked anew: the old outcome does not carry over.
    const rotated = { ...USERS, prometheus: testHash('new') };
    expect(await auth.check(rotated, basicAuth('prometheus', 's3cret'))).toBe(false);
    expect(await auth.check(rotated, basicAuth('prometheus', 'new'))).toBe(true);
    expect(counted.calls).toHaveLength(4);
  });

  it('checks an unknown user against a real hash, so it costs what a wrong password costs, and refuses it', async () => {
    const counted = countingCompare();
    const auth = createBasicAuth(counted.compare);
    // The password is right for the first user, but the user name is unknown.
    expect(await auth.check(USERS, basicAuth('nobody', 's3cret'))).toBe(false);
    expect(counted.calls).toEqual([['s3cret', USERS.prometheus]]);
    expect(auth.check(USERS, basicAuth('nobody', 's3cret'))).toBe(false);
  });

  it('refuses missing and malformed headers without bcrypt', () => {
    const counted = countingCompare();
    const auth = createBasicAuth(counted.compare);
    for (const header of [
      undefined,
      '',
      'Basic',
      'Bearer abc',
      'Basic !!!',
      `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from(':pw').toString('base64')}`,
    ]) {
      expect(auth.check(USERS, header)).toBe(false);
    }
    expect(auth.check({}, basicAuth('prometheus', 's3cret'))).toBe(false);
    expect(counted.calls).toEqual([]);
  });

  it('runs one bcrypt at a time and answers "busy" beyond the queue bound, however many addresses the checks come from', async () => {
    let running = 0;
    let most = 0;
    const releases: (() => void)[] = [];
    const auth = createBasicAuth(async () => {
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      return false;
    });
    const pending = Array.from({ length: MAX_WAITING_CHECKS }, (_, i) => auth.check(USERS, basicAuth('prometheus', `guess-${i}`), `192.0.2.${i}`));
    expect(auth.check(USERS, basicAuth('prometheus', 'one-too-many'), '198.51.100.1')).toBe('busy');
    let settled = 0;
    for (const p of pending) void Promise.resolve(p).then(() => settled++);
    while (settled < pending.length) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      releases.shift()?.();
    }
    expect(await Promise.all(pending.map((p) => Promise.resolve(p)))).toEqual(pending.map(() => false));
    expect(most).toBe(1);
  });

  it('keeps a credential that succeeded through any number of wrong guesses', async () => {
    let checks = 0;
    const auth = createBasicAuth(async (password, hash) => {
      checks += 1;
      return password === 's3cret' && hash === USERS.prometheus;
    });
    expect(await auth.check(USERS, basicAuth('prometheus', 's3cret'), '192.0.2.1')).toBe(true);
    // Three times as many distinct failures as are remembered, each from an address of its own (none throttled).
    for (let i = 0; i < 3 * CACHED_FAILURES; i += 1) {
      expect(await auth.check(USERS, basicAuth('prometheus', `guess-${i}`), `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`)).toBe(false);
    }
    // Still remembered: answered at once, no check run.
    expect(checks).toBe(1 + 3 * CACHED_FAILURES);
    expect(auth.check(USERS, basicAuth('prometheus', 's3cret'), '192.0.2.1')).toBe(true);
    expect(checks).toBe(1 + 3 * CACHED_FAILURES);
  });

  it('throttles the uncached checks of an address that keeps failing, and no other address, nor its cached success', async () => {
    let now = 0;
    let checks = 0;
    const auth = createBasicAuth(
      async (password) => {
        checks += 1;
        return password === 's3cret';
      },
      () => now,
    );
    expect(await auth.check(USERS, basicAuth('prometheus', 's3cret'), '192.0.2.7')).toBe(true);
    for (let i = 0; i < FAILURE_BURST; i += 1) expect(await auth.check(USERS, basicAuth('prometheus', `guess-${i}`), '192.0.2.7')).toBe(false);
    const before = checks;
    // Past its burst: throttled, no check run, told when to come back.
    expect(auth.check(USERS, basicAuth('prometheus', 'one-more'), '192.0.2.7')).toEqual({ throttled: 1 });
    expect(checks).toBe(before);
    // Its cached success passes; another address is checked as usual.
    expect(auth.check(USERS, basicAuth('prometheus', 's3cret'), '192.0.2.7')).toBe(true);
    expect(await auth.check(USERS, basicAuth('prometheus', 'other-guess'), '192.0.2.8')).toBe(false);
    // One more check a second.
    now += FAILURE_REFILL_MS;
    expect(await auth.check(USERS, basicAuth('prometheus', 'one-more'), '192.0.2.7')).toBe(false);
    expect(auth.check(USERS, basicAuth('prometheus', 'again'), '192.0.2.7')).toEqual({ throttled: 1 });
  });

  it('parses user and password, a password with colons included, the scheme in any case', () => {
    expect(parseBasic(`basic ${Buffer.from('u:p:q').toString('base64')}`)).toEqual({ user: 'u', password: 'p:q' });
    expect(parseBasic(basicAuth('prometheus', ''))).toEqual({ user: 'prometheus', password: '' });
  });
});
