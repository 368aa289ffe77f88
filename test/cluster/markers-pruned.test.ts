import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clusterKeys } from '../../src/cluster/keys.js';
import { createShare } from '../../src/cluster/share.js';
import type { ChannelSpec } from '../../src/cluster/view.js';
import { createLogSink } from '../helpers/log.js';
import { eventually } from '../helpers/process.js';
import { redisServerPath, startRedis, type RunningRedis } from '../helpers/redis.js';

const redisBin = redisServerPath();

const spec: ChannelSpec<string> = {
  keyOf: (line) => line,
  encode: (line) => line,
  decode: (line) => line,
  receive: () => undefined,
  receiveMarkers: () => undefined,
  held: () => [],
};

/** A member that left (or restarted under another id) leaves markers nobody replaces: the leader removes them. */
describe.skipIf(redisBin === null)('markers of departed members', () => {
  let redis: RunningRedis;
  const connections: Redis[] = [];
  beforeAll(async () => {
    redis = await startRedis(redisBin as string);
  });
  afterAll(async () => {
    for (const c of connections) c.disconnect();
    await redis.stop();
  });

  const shareOf = (self: string) => {
    const main = new Redis(redis.url);
    const reader = new Redis(redis.url);
    connections.push(main, reader);
    const share = createShare({
      main,
      reader,
      keys: clusterKeys('prune'),
      self,
      incarnation: self,
      logger: createLogSink().logger,
      wallOffset: () => 0,
      records: () => 10,
    });
    return { share, channel: share.channel('wallets', spec) };
  };

  it('leaves the markers of members still in the list, and removes the others', async () => {
    const markers = clusterKeys('prune').markers('wallets');
    const r1 = shareOf('r1');
    const gone = shareOf('old-pod:10384');
    r1.channel.publish([], [{ key: 'a', line: 'r1 a' }]);
    gone.channel.publish(
      [],
      [
        { key: 'a', line: 'old a' },
        { key: 'b', line: 'old b' },
      ],
    );
    await eventually(async () => ((await redis.client().hlen(markers)) === 3 ? true : undefined), 5_000, 'three markers written');
    await r1.share.pruneMarkers(['r1', 'r2']);
    expect(await redis.client().hgetall(markers)).toEqual({ 'r1|a': 'r1 a' });
    r1.share.stop();
    gone.share.stop();
  });
});
