import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeys } from '../../src/cluster/keys.js';
import { createOutbox } from '../../src/cluster/share-out.js';
import type { ChannelSpec } from '../../src/cluster/view.js';
import { createLogSink } from '../helpers/log.js';
import { eventually } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';

const redisBin = redisServerPath();

interface Item {
  readonly key: string;
  readonly value: string;
}

const spec: ChannelSpec<Item> = {
  keyOf: (item) => item.key,
  encode: (item) => `${item.key} ${item.value}`,
  decode: () => null,
  receive: () => undefined,
  held: () => [],
};

/**
 * The stream is trimmed by time as well as by count: once the records of a first cycle are
 * shared, the little that steady cycles write must not keep them in Redis for hours.
 */
describe.skipIf(redisBin === null)('the shared stream, trimmed by time', () => {
  let redis: RunningRedis;
  let main: Redis;
  beforeAll(async () => {
    redis = await startRedis(redisBin as string);
    // Small stream nodes, so that approximate trimming (whole nodes) shows at a test's scale.
    await redis.client().config('SET', 'stream-node-max-entries', '2');
    main = new Redis(redis.url);
  });
  afterAll(async () => {
    main.disconnect();
    await redis.stop();
  });

  it('drops entries older than the window once newer ones are written, and keeps the recent ones', async () => {
    const keys = clusterKeys('window');
    const outbox = createOutbox({
      main,
      keys,
      self: 'r1',
      incarnation: 'a',
      logger: createLogSink().logger,
      wallOffset: () => 0,
      // The count alone would keep every entry of this test.
      records: () => 1_000_000,
      streamWindowMs: 2_000,
    });
    outbox.channel('items', spec);
    // A first cycle: ten entries of full records.
    for (let i = 0; i < 10; i += 1) {
      outbox.publish('items', [{ key: `k${i}`, value: 'x'.repeat(1000) }]);
      await eventually(async () => ((await main.xlen(keys.updates)) === i + 1 ? true : undefined), 5_000, `entry ${i + 1}`);
    }
    await sleep(2_500);
    // Steady cycles: markers only, past the window. Each trims by the time of the replica's
    // entry before it: the first marker's transaction, then the second's, which goes past the records.
    outbox.publish('items', [], [{ key: 'm', line: 'marker 1' }]);
    await eventually(async () => ((await main.xlen(keys.updates)) === 11 ? true : undefined), 5_000, 'marker 1');
    outbox.publish('items', [], [{ key: 'm', line: 'marker 2' }]);
    await eventually(async () => ((await main.xlen(keys.updates)) <= 3 ? true : undefined), 5_000, 'the old entries trimmed');
    const left = await main.xrange(keys.updates, '-', '+');
    expect(left.every(([, fields]) => !fields.includes('d'))).toBe(true);
    expect(left.map(([, fields]) => fields[fields.indexOf('m') + 1])).toContain('marker 2');
    // The hash keeps every record: only the stream is trimmed.
    expect(await main.hlen(keys.channel('items'))).toBe(10);
    outbox.stop();
  });
});
