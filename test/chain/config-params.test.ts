import { beginCell, Dictionary, generateMerkleProofDirect, type Builder } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readElectionTiming, readElectorAddress, readStakeLimits, readValidatorSet, validatorSetCell } from '../../src/ton/config-params.js';
import { hashmapLeaves, hashmapLookup, keyBits } from '../../src/ton/hashmap.js';
import { buildMcStateProof, readConfigFromProof, readCreatorStats } from '../../src/ton/mc-state.js';

/** Config parameters and masterchain state proofs read from cells built with @ton/core's builders, as block.tlb lays them out. */

const key = (byte: number): Buffer => Buffer.alloc(32, byte);
const TON = 1_000_000_000n;

/** A ValidatorDescr as block.tlb writes it: validator#53, or validator_addr#73 with an ADNL address. */
const descr = (b: Builder, pubkey: Buffer, weight: bigint, adnl?: Buffer): void => {
  b.storeUint(adnl === undefined ? 0x53 : 0x73, 8)
    .storeUint(0x8e81278a, 32)
    .storeBuffer(pubkey, 32)
    .storeUint(weight, 64);
  if (adnl !== undefined) b.storeBuffer(adnl, 32);
};
describe('config 32/34/36: a validator set', () => {
  it('reads validators_ext#12 (HashmapE, total weight given), plain and with ADNL addresses, in index order', () => {
    const list = Dictionary.empty(Dictionary.Keys.Uint(16), Dictionary.Values.Cell());
    list.set(
      0,
      beginCell()
        .store((b) => descr(b, key(0xaa), 600n, key(0x0a)))
        .endCell(),
    );
    list.set(
      1,
      beginCell()
        .store((b) => descr(b, key(0xbb), 400n))
        .endCell(),
    );
    const cell = beginCell()
      .storeUint(0x12, 8)
      .storeUint(1_700_000_000, 32)
      .storeUint(1_700_065_536, 32)
      .storeUint(2, 16)
      .storeUint(1, 16)
      .storeUint(1000n, 64)
      .storeDict(list, Dictionary.Keys.Uint(16), { serialize: (c, b) => void b.storeSlice(c.beginParse()), parse: (s) => s.asCell() })
      .endCell();
    expect(readValidatorSet(cell)).toEqual({
      since: 1_700_000_000,
      until: 1_700_065_536,
      total: 2,
      main: 1,
      totalWeight: 1000n,
      validators: [
        { publicKey: 'aa'.repeat(32), weight: 600n, adnl: '0a'.repeat(32) },
        { publicKey: 'bb'.repeat(32), weight: 400n, adnl: null },
      ],
    });
  });

  it('reads validators#11 (a non-empty Hashmap, no total weight: the sum is taken)', () => {
    const list = Dictionary.empty(Dictionary.Keys.Uint(16), Dictionary.Values.Cell());
    list.set(
      0,
      beginCell()
        .store((b) => descr(b, key(0x01), 7n))
        .endCell(),
    );
    list.set(
      1,
      beginCell()
        .store((b) => descr(b, key(0x02), 5n))
        .endCell(),
    );
    const cell = beginCell()
      .storeUint(0x11, 8)
      .storeUint(10, 32)
      .storeUint(20, 32)
      .storeUint(2, 16)
      .storeUint(2, 16)
      .storeDictDirect(list, Dictionary.Keys.Uint(16), { serialize: (c, b) => void b.storeSlice(c.beginParse()), parse: (s) => s.asCell() })
      .endCell();
    const set = readValidatorSet(cell);
    expect(set.totalWeight).toBe(12n);
    expect(set.validators.map((v) => v.publicKey)).toEqual(['01'.repeat(32), '02'.repeat(32)]);
  });

  it('writes what it reads (the simulator builds its sets with it)', () => {
    const set = { since: 1, until: 2, total: 1, main: 1, validators: [{ publicKey: 'cd'.repeat(32), weight: 3n, adnl: 'ef'.repeat(32) }] };
    expect(readValidatorSet(validatorSetCell(set))).toEqual({ ...set, totalWeight: 3n });
  });

  it('refuses a cell that is not a validator set', () => {
    expect(() => readValidatorSet(beginCell().storeUint(0x13, 8).endCell())).toThrow(/not a ValidatorSet/);
  });
});

describe('config 1, 15 and 17', () => {
  it('reads the elector address, the election timing and the stake limits, stakes exact past 2^53', () => {
    expect(readElectorAddress(beginCell().storeBuffer(Buffer.alloc(32, 0x33)).endCell())).toBe(`-1:${'3'.repeat(64)}`);
    const timing = beginCell().storeUint(65536, 32).storeUint(32768, 32).storeUint(8192, 32).storeUint(32768, 32).endCell();
    expect(readElectionTiming(timing)).toEqual({ validatorsElectedFor: 65536, electionsStartBefore: 32768, electionsEndBefore: 8192, stakeHeldFor: 32768 });
    const huge = 12_345_678_901_234_567_890n;
    const limits = beginCell()
      .storeCoins(300_000n * TON)
      .storeCoins(huge)
      .storeCoins(75_000_000n * TON)
      .storeUint(196608, 32)
      .endCell();
    expect(readStakeLimits(limits)).toEqual({ minStake: 300_000n * TON, maxStake: huge, minTotalStake: 75_000_000n * TON, maxStakeFactor: 196608 });
  });
});

describe('a masterchain state proof', () => {
  it('gives the config parameters asked for, null for one it does not hold, and the block creators', () => {
    const params = new Map([
      [1, beginCell().storeBuffer(Buffer.alloc(32, 0x33)).endCell()],
      [17, beginCell().storeCoins(5n).storeCoins(6n).storeCoins(7n).storeUint(65536, 32).endCell()],
    ]);
    const creators = new Map([
      ['0'.repeat(64), { masterchain: 100n, shardchain: 250n }],
      ['ab'.repeat(32), { masterchain: 20n, shardchain: 50n }],
    ]);
    const proof = buildMcStateProof({ seqno: 9, genUtime: 1_700_000_000, configAddress: Buffer.alloc(32, 0x55), params, creators });
    const found = readConfigFromProof(proof, [1, 17, 36]);
    expect(found.get(1)?.hash()).toEqual(params.get(1)?.hash());
    expect(found.get(17)?.hash()).toEqual(params.get(17)?.hash());
    expect(found.get(36)).toBeNull();
    expect(readCreatorStats(proof)).toEqual(creators);
  });

  it('walks a dictionary whose other branches are pruned (as a liteserver proves a few keys of many)', () => {
    const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Uint(8));
    for (let i = 1; i <= 40; i += 1) dict.set(BigInt(i) << 200n, i);
    const proven = [BigInt(7) << 200n, BigInt(31) << 200n];
    // The dictionary's root, every branch off the proven keys' paths a pruned cell.
    const root = generateMerkleProofDirect(dict, proven, Dictionary.Keys.BigUint(256));
    const leaves = hashmapLeaves(root, 256);
    expect(leaves.map(([bits, s]) => [BigInt(`0b${bits}`), s.loadUint(8)])).toEqual([
      [proven[0], 7],
      [proven[1], 31],
    ]);
    expect(hashmapLookup(root, 256, keyBits(proven[1] as bigint, 256))?.loadUint(8)).toBe(31);
  });
});
