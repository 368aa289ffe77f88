import { describe, expect, it } from 'vitest';
import { createBasicAuth, MAX_WAITING_CHECKS, parseBasic } from '../../src/serve/basic-auth.js';
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

  it('runs one bcrypt at a time and answers "busy" beyond the queue bound', async () => {
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
    const pending = Array.from({ length: MAX_WAITING_CHECKS }, (_, i) => auth.check(USERS, basicAuth('prometheus', `guess-${i}`)));
    expect(auth.check(USERS, basicAuth('prometheus', 'one-too-many'))).toBe('busy');
    let settled = 0;
    for (const p of pending) void Promise.resolve(p).then(() => settled++);
    while (settled < pending.length) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      releases.shift()?.();
    }
    expect(await Promise.all(pending.map((p) => Promise.resolve(p)))).toEqual(pending.map(() => false));
    expect(most).toBe(1);
  });

  it('parses user and password, a password with colons included, the scheme in any case', () => {
    expect(parseBasic(`basic ${Buffer.from('u:p:q').toString('base64')}`)).toEqual({ user: 'u', password: 'p:q' });
    expect(parseBasic(basicAuth('prometheus', ''))).toEqual({ user: 'prometheus', password: '' });
  });
});
