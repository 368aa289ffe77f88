import { describe, expect, it } from 'vitest';
import { CONFIG_PIECES } from '../../src/features/index.js';
import { describeConfig } from '../../src/config/load.js';
import { memberId } from '../../src/cluster/link.js';
import { configFrom, problemsOf } from '../helpers/config.js';

describe('the cluster section', () => {
  it('is absent by default: one process', async () => {
    expect((await configFrom('{}')).cluster).toBeNull();
    expect(await describeConfig(await configFrom('{}'), CONFIG_PIECES)).toContain('cluster: none (one process)');
  });

  it('takes a Redis URL from the environment, with defaults for the rest, and never prints its password', async () => {
    const config = await configFrom('cluster: { redis: "${REDIS_URL}" }\n', {}, { REDIS_URL: 'rediss://tonwatch:s3cret-pw@redis.internal:6380/2' });
    expect(config.cluster).toEqual({ redis: 'rediss://tonwatch:s3cret-pw@redis.internal:6380/2', name: 'tonwatch', memberTtlSeconds: 10 });
    const text = await describeConfig(config, CONFIG_PIECES);
    expect(text).not.toContain('s3cret-pw');
    expect(text).toContain('rediss://redis.internal:6380/…');
    expect(memberId({ ...config.cluster!, member: undefined }, 10384)).toMatch(/:10384$/);
    expect(memberId({ ...config.cluster!, member: 'pod-0' }, 10384)).toBe('pod-0');
  });

  it('reports what is wrong with each key', async () => {
    const problems = await problemsOf('cluster: { redis: "http://x:6379", name: "a b", memberTtlSeconds: 1, member: "", extra: 1 }\n');
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p.message]));
    expect(byPath['cluster.redis']).toMatch(/redis:\/\/ or rediss:\/\//);
    expect(byPath['cluster.name']).toMatch(/letters, digits/);
    expect(byPath['cluster.memberTtlSeconds']).toBeDefined();
    expect(byPath['cluster.member']).toMatch(/letters, digits/);
    expect(byPath['cluster']).toMatch(/unknown key: extra/);
    expect((await problemsOf('cluster: { redis: "not a url" }\n'))[0]?.message).toMatch(/not a URL/);
    expect((await problemsOf('cluster: { redis: "redis://host/db" }\n'))[0]?.message).toMatch(/database by number/);
    expect((await problemsOf('cluster: {}\n'))[0]?.path).toBe('cluster.redis');
  });
});
