import { describe, expect, it } from 'vitest';
import {
  parentShard,
  parseSignedShard,
  shardContains,
  shardDepth,
  siblingShard,
  signedShardToHex,
  splitShard,
  unsignedShardToHex,
  unsignedShardToSigned,
  WHOLE_WORKCHAIN_SHARD,
} from '../../src/ton/shard.js';

describe('shard ids', () => {
  it.each([
    ['-9223372036854775808', '8000000000000000'],
    ['4611686018427387904', '4000000000000000'],
    ['-4611686018427387904', 'C000000000000000'],
    ['2305843009213693952', '2000000000000000'],
    ['-6917529027641081856', 'A000000000000000'],
    ['1', '0000000000000001'],
  ])('%s is %s in hex', (signed, hex) => {
    expect(signedShardToHex(signed)).toBe(hex);
    expect(unsignedShardToSigned(BigInt(`0x${hex}`))).toBe(signed);
  });

  it.each(['', 'abc', '9223372036854775808', '-9223372036854775809', '1.5', '0x10'])('rejects %j', (bad) => {
    expect(() => parseSignedShard(bad)).toThrow(RangeError);
  });

  it('splits, finds siblings and parents', () => {
    const [left, right] = splitShard(WHOLE_WORKCHAIN_SHARD);
    expect(unsignedShardToHex(left)).toBe('4000000000000000');
    expect(unsignedShardToHex(right)).toBe('C000000000000000');
    expect(siblingShard(left)).toBe(right);
    expect(parentShard(left)).toBe(WHOLE_WORKCHAIN_SHARD);
    expect(parentShard(right)).toBe(WHOLE_WORKCHAIN_SHARD);
    const [ll, lr] = splitShard(left);
    expect(unsignedShardToHex(ll)).toBe('2000000000000000');
    expect(unsignedShardToHex(lr)).toBe('6000000000000000');
    expect(parentShard(lr)).toBe(left);
    expect(shardDepth(WHOLE_WORKCHAIN_SHARD)).toBe(0);
    expect(shardDepth(lr)).toBe(2);
    expect(() => parentShard(WHOLE_WORKCHAIN_SHARD)).toThrow();
  });
});

describe('shardContains', () => {
  it('places an account by the leading bits of its id', () => {
    expect(shardContains(0x8000000000000000n, 0x1234n)).toBe(true);
    expect(shardContains(0x4000000000000000n, 0x3fffffffffffffffn)).toBe(true);
    expect(shardContains(0x4000000000000000n, 0x8000000000000000n)).toBe(false);
    expect(shardContains(0xc000000000000000n, 0x8000000000000001n)).toBe(true);
  });
});
