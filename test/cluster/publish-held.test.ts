import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeys } from '../../src/cluster/keys.js';
import { createOutbox, MARKERS_PER_ENTRY } from '../../src/cluster/share-out.js';
import type { ChannelSpec } from '../../src/cluster/view.js';
import { createLogSink } from '../helpers/log.js';
import { eventually } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';

const redisBin = redisServerPath();

interface Item {
  readonly key: string;
  readonly value: string;
}

/**
 * After a member change a replica shares everything it holds again: at a million wallets a
 * quarter of a million records. They are drawn from what it holds a stream entry at a time,
 * between served requests, not walked in one task that outlasts the heartbeats.
 */
describe.skipIf(redisBin === null)('publishing what a replica holds', () => {
  let redis: RunningRedis;
  let main: Redis;
  beforeAll(async () => {
    redis = await startRedis(redisBin as string);
    main = new Redis(redis.url);
  });
  afterAll(async () => {
    main.disconnect();
    await redis.stop();
  });

  it('draws the held records a write at a time, and sends markers after all of them', async () => {
    const keys = clusterKeys('held');
    const held = new Map<string, Item>();
    for (let i = 0; i < 5_000; i += 1) held.set(`k${i}`, { key: `k${i}`, value: `v${i}` });
    let drawn = 0;
    const spec: ChannelSpec<Item> = {
      keyOf: (item) => item.key,
      encode: (item) => `${item.key} ${item.value}`,
      decode: () => null,
      receive: () => undefined,
      *held() {
        for (const key of held.keys()) {
          drawn += 1;
          yield held.get(key) as Item;
        }
      },
    };
    const outbox = createOutbox({ main, keys, self: 'r1', incarnation: 'a', logger: createLogSink().logger, wallOffset: () => 0, records: () => held.size });
    outbox.channel('items', spec);
    outbox.publishHeld();
    // One write's worth before the first transaction goes out, not the whole share.
    expect(drawn).toBeLessThanOrEqual(1_001);
    // A record that changes meanwhile goes out as it is now, and a marker after every record.
    held.set('k4999', { key: 'k4999', value: 'changed' });
    outbox.publish('items', [], [{ key: '0', line: 'marker' }]);
    await eventually(async () => ((await main.hlen(keys.channel('items'))) === 5_000 ? true : undefined), 10_000, 'every held record in the hash');
    expect(drawn).toBe(5_000);
    expect(await main.hget(keys.channel('items'), 'k4999')).toBe('k4999 changed');
    await eventually(async () => ((await main.xlen(keys.updates)) === 6 ? true : undefined), 10_000, 'five record entries and a marker entry');
    const entries = await main.xrange(keys.updates, '-', '+');
    const kinds = entries.map(([, fields]) => (fields.includes('m') ? 'markers' : 'records'));
    expect(kinds).toEqual(['records', 'records', 'records', 'records', 'records', 'markers']);
    outbox.stop();
  });

  it('sends a share of markers over several entries, each a bounded task for its readers', async () => {
    const keys = clusterKeys('markers');
    const spec: ChannelSpec<Item> = {
      keyOf: (item) => item.key,
      encode: (item) => item.value,
      decode: () => null,
      receive: () => undefined,
      held: () => [][Symbol.iterator](),
    };
    const outbox = createOutbox({ main, keys, self: 'r1', incarnation: 'a', logger: createLogSink().logger, wallOffset: () => 0, records: () => 0 });
    outbox.channel('items', spec);
    // A quarter of a million wallets' markers, as a replica's steady cycle at a million over four.
    const markers = Array.from({ length: 250 }, (_, i) => ({ key: String(i * 1000), line: `marker ${i}` }));
    outbox.publish('items', [], markers);
    await eventually(async () => ((await main.hlen(keys.markers('items'))) === 250 ? true : undefined), 10_000, 'every marker in the hash');
    await eventually(async () => ((await main.xlen(keys.updates)) === Math.ceil(250 / MARKERS_PER_ENTRY) ? true : undefined), 10_000, 'the marker entries');
    const entries = await main.xrange(keys.updates, '-', '+');
    const lines = entries.map(([, fields]) => (fields[fields.indexOf('m') + 1] ?? '').split('\n'));
    expect(Math.max(...lines.map((l) => l.length))).toBe(MARKERS_PER_ENTRY);
    expect(lines.flat()).toEqual(markers.map((m) => m.line));
    outbox.stop();
  });
});
