import { describe, expect, it } from 'vitest';
import { isOlderAnswer, queueSizesSnapshotFrom } from '../../src/features/queue-sizes/poll.js';
import { outMsgQueueSizesEnvelopeSchema } from '../../src/upstream/http/schemas.js';
import { fixture, queueSnapshot } from '../helpers/fixtures.js';

describe('queue-size body → snapshot', () => {
  it.each(['v2-queue-sizes-python.json', 'v2-queue-sizes-cpp.json'])('maps the captured body %s', (name) => {
    const envelope = outMsgQueueSizesEnvelopeSchema.parse(fixture(name));
    const snapshot = queueSizesSnapshotFrom({
      upstream: 'toncenter',
      fetchedAt: 1_000,
      value: { ...envelope.result, extra: envelope.result['@extra'] ?? envelope['@extra'] },
    });
    expect(snapshot).toEqual({
      fetchedAt: 1_000,
      upstream: 'toncenter',
      extMsgQueueSizeLimit: 8000,
      shards: [
        {
          workchain: -1,
          shard: '-9223372036854775808',
          seqno: 51149550,
          rootHash: 'aa5DrbypWLx+3hICy5IOusAsMB8LA+JY41tjUtlYVhQ=',
          fileHash: 'Yd96kDamNL490591/O2unVWv9FUrkANnso8ZMwEHtqU=',
          size: 0,
        },
      ],
    });
  });

  it.each([
    ['a shard out of the signed range', (b: any) => (b.result.shards[0].id.shard = '9223372036854775808'), 'result.shards.0.id.shard', /signed 64-bit/],
    ['a negative size', (b: any) => (b.result.shards[0].size = -1), 'result.shards.0.size', />=0/],
    ['a string size', (b: any) => (b.result.shards[0].size = '5'), 'result.shards.0.size', /expected number/],
    ['a missing limit', (b: any) => delete b.result.ext_msg_queue_size_limit, 'result.ext_msg_queue_size_limit', /expected number/],
    ['a short hash', (b: any) => (b.result.shards[0].id.root_hash = 'abc='), 'result.shards.0.id.root_hash', /base64 256-bit hash/],
    ['no shards', (b: any) => (b.result.shards = []), 'result.shards', /no shards/],
  ])('rejects a body with %s, saying where and why', (_name, mutate, path, message) => {
    const body = fixture('v2-queue-sizes-python.json');
    mutate(body);
    const parsed = outMsgQueueSizesEnvelopeSchema.safeParse(body);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toHaveLength(1);
    const issue = parsed.error?.issues[0];
    expect(issue?.path.join('.')).toBe(path);
    expect(issue?.message).toMatch(message);
  });

  it('accepts any block id @type and unknown extra keys', () => {
    const body = fixture('v2-queue-sizes-python.json') as any;
    body.result.shards[0].id['@type'] = 'chain.blockIdExt';
    body.result.new_field = 1;
    expect(outMsgQueueSizesEnvelopeSchema.safeParse(body).success).toBe(true);
  });
});

describe('never backwards: an answer older than the one held', () => {
  const held = queueSnapshot();
  const withSeqnos = (seqnos: readonly number[], shards = held.shards) =>
    queueSnapshot({ shards: shards.map((s, i) => ({ ...s, seqno: seqnos[i] ?? s.seqno })) });

  it('is older when its masterchain block or a shard block it shares has a lower seqno', () => {
    expect(isOlderAnswer(withSeqnos([51149549]), held)).toBe(true);
    expect(isOlderAnswer(withSeqnos([51149550, 56000001, 56000001]), held)).toBe(true);
    expect(isOlderAnswer(held, held)).toBe(false);
    expect(isOlderAnswer(withSeqnos([51149551, 56000002, 56000003]), held)).toBe(false);
  });

  it('is not older for a split or a merge: new shard ids, seqnos that continue', () => {
    const [master, left, right] = held.shards;
    if (!master || !left || !right) throw new Error('fixture has three shards');
    // 4000… splits into 2000… and 6000…; the children start past the parent's seqno.
    const split = queueSnapshot({
      shards: [
        { ...master, seqno: master.seqno + 1 },
        { ...left, shard: '2305843009213693952', seqno: left.seqno + 1 },
        { ...left, shard: '6917529027641081856', seqno: left.seqno + 1 },
        right,
      ],
    });
    expect(isOlderAnswer(split, held)).toBe(false);
    const merged = queueSnapshot({
      shards: [
        { ...master, seqno: master.seqno + 2 },
        { ...left, shard: '-9223372036854775808', workchain: 0, seqno: right.seqno + 1 },
      ],
    });
    expect(isOlderAnswer(merged, split)).toBe(false);
  });
});
