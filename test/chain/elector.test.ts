import { beginCell, Cell, Dictionary, parseTuple, serializeTuple, type TupleItem } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { readElection, readPastElections } from '../../src/features/chain/elector.js';
import { readStack } from '../../src/upstream/http/tvm-stack.js';

/**
 * The elector's stacks as the two upstream kinds deliver them: toncenter's runGetMethod JSON
 * (chain-facts.md: hex numbers at the top, TL-JSON with decimal numbers inside, lists
 * flattened, null as an empty list, -1 as "-0x1"), and a liteserver's VmStack BoC. Both read
 * the same.
 */

const TON = 1_000_000_000n;
const hexKey = (byte: string): string => byte.repeat(32);
const num = (n: bigint | number) => ({ '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: String(n) } });
const tuple = (...elements: unknown[]) => ({ '@type': 'tvm.stackEntryTuple', tuple: { '@type': 'tvm.tuple', elements } });
const list = (...elements: unknown[]) => ({ '@type': 'tvm.stackEntryList', list: { '@type': 'tvm.list', elements } });
const cell = (c: Cell) => ({ '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: c.toBoc().toString('base64') } });

/** An open election with two participants, as toncenter writes participant_list_extended. */
const OPEN_JSON = [
  ['num', '0x6553f100'],
  ['num', '0x6553b0e0'],
  ['num', `0x${(10_000n * TON).toString(16)}`],
  ['num', `0x${(700_000n * TON).toString(16)}`],
  [
    'list',
    {
      '@type': 'tvm.list',
      elements: [
        tuple(num(BigInt(`0x${hexKey('aa')}`)), tuple(num(300_000n * TON), num(196608), num(BigInt(`0x${hexKey('a1')}`)), num(BigInt(`0x${hexKey('a2')}`)))),
        tuple(num(BigInt(`0x${hexKey('bb')}`)), tuple(num(400_000n * TON), num(65536), num(BigInt(`0x${hexKey('b1')}`)), num(BigInt(`0x${hexKey('b2')}`)))),
      ],
    },
  ],
  ['num', '0x0'],
  ['num', '-0x1'],
];

const EXPECTED_ELECTION = {
  id: 0x6553f100,
  closesAt: 0x6553b0e0,
  minStake: 10_000n * TON,
  totalStake: 700_000n * TON,
  participants: [
    { publicKey: hexKey('aa'), stake: 300_000n * TON, maxFactor: 196608, wallet: hexKey('a1'), adnl: hexKey('a2') },
    { publicKey: hexKey('bb'), stake: 400_000n * TON, maxFactor: 65536, wallet: hexKey('b1'), adnl: hexKey('b2') },
  ],
  failed: false,
  finished: true,
};

/** The same stack as a FunC program leaves it: the list as nested pairs. */
const int = (value: bigint | number): TupleItem => ({ type: 'int', value: BigInt(value) });
const pair = (head: TupleItem, rest: TupleItem): TupleItem => ({ type: 'tuple', items: [head, rest] });
const participant = (key: string, stake: bigint, factor: number, wallet: string, adnl: string): TupleItem => ({
  type: 'tuple',
  items: [int(BigInt(`0x${key}`)), { type: 'tuple', items: [int(stake), int(factor), int(BigInt(`0x${wallet}`)), int(BigInt(`0x${adnl}`))] }],
});
const OPEN_STACK: TupleItem[] = [
  int(0x6553f100),
  int(0x6553b0e0),
  int(10_000n * TON),
  int(700_000n * TON),
  pair(
    participant(hexKey('aa'), 300_000n * TON, 196608, hexKey('a1'), hexKey('a2')),
    pair(participant(hexKey('bb'), 400_000n * TON, 65536, hexKey('b1'), hexKey('b2')), { type: 'null' }),
  ),
  int(0),
  int(-1),
];

/** A liteserver's result: the stack through a VmStack BoC and back, as @ton/core reads it. */
const viaLiteserver = (items: TupleItem[]): TupleItem[] => parseTuple(Cell.fromBoc(serializeTuple(items).toBoc())[0] as Cell);

describe('participant_list_extended', () => {
  it('reads an open election from toncenter JSON and from a liteserver stack alike', () => {
    expect(readElection(readStack(OPEN_JSON))).toEqual(EXPECTED_ELECTION);
    expect(readElection(viaLiteserver(OPEN_STACK))).toEqual(EXPECTED_ELECTION);
  });

  it('reads no election from (0, 0, 0, 0, null, 0, 0): toncenter renders the null list as an empty list', () => {
    const none = [
      ['num', '0x0'],
      ['num', '0x0'],
      ['num', '0x0'],
      ['num', '0x0'],
      ['list', { '@type': 'tvm.list', elements: [] }],
      ['num', '0x0'],
      ['num', '0x0'],
    ];
    expect(readElection(readStack(none))).toBeNull();
    expect(readElection(viaLiteserver([int(0), int(0), int(0), int(0), { type: 'null' }, int(0), int(0)]))).toBeNull();
  });

  it('takes a one-participant list (a pair whose second item is null, which toncenter renders as a list too)', () => {
    const one = OPEN_JSON.map((entry, i) =>
      i === 4 ? ['list', { '@type': 'tvm.list', elements: [(entry[1] as { elements: unknown[] }).elements[0]] }] : entry,
    );
    expect(readElection(readStack(one))?.participants.map((p) => p.publicKey)).toEqual([hexKey('aa')]);
  });

  it('refuses a stack of another shape, saying where', () => {
    expect(() =>
      readElection(
        readStack([
          ['num', '0x5'],
          ['num', '0x6'],
          ['num', '0x0'],
          ['num', '0x0'],
          ['num', '0x7'],
          ['num', '0x0'],
          ['num', '0x0'],
        ]),
      ),
    ).toThrow(/participants: not a list/);
  });
});

/** frozen_dict: pubkey → addr:uint256 weight:uint64 stake:Grams banned:Bool, as the elector stores it. */
function frozenDict(entries: readonly [string, bigint, bigint][]): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [key, weight, stake] of entries) {
    dict.set(BigInt(`0x${key}`), beginCell().storeUint(0, 256).storeUint(weight, 64).storeCoins(stake).storeBit(false).endCell());
  }
  return beginCell()
    .storeDictDirect(dict, Dictionary.Keys.BigUint(256), { serialize: (c, b) => void b.storeSlice(c.beginParse()), parse: (s) => s.asCell() })
    .endCell();
}

/** complaints: hash → complaint_status#2d with its validator_complaint#bc against `key`. */
function complaintsDict(keys: readonly string[]): Cell {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  keys.forEach((key, i) => {
    const complaint = beginCell()
      .storeUint(0xbc, 8)
      .storeBuffer(Buffer.from(key, 'hex'))
      .storeRef(beginCell().endCell())
      .storeUint(1_700_000_000, 32)
      .storeUint(2, 8)
      .storeUint(0, 256)
      .storeCoins(0)
      .storeCoins(101n * TON)
      .storeUint(0, 32)
      .endCell();
    dict.set(BigInt(i + 1), beginCell().storeUint(0x2d, 8).storeRef(complaint).storeBit(false).storeUint(7, 256).storeInt(1000, 64).endCell());
  });
  return beginCell()
    .storeDictDirect(dict, Dictionary.Keys.BigUint(256), { serialize: (c, b) => void b.storeSlice(c.beginParse()), parse: (s) => s.asCell() })
    .endCell();
}

describe('past_elections', () => {
  const frozen = frozenDict([
    [hexKey('aa'), 60n, 300_000n * TON],
    [hexKey('bb'), 80n, 400_000n * TON],
  ]);
  const complaints = complaintsDict([hexKey('bb'), hexKey('bb')]);
  const expected = [
    {
      id: 1_699_000_000,
      unfreezeAt: 1_699_100_000,
      totalStake: 700_000n * TON,
      bonuses: 1_234_567_890_123n,
      frozen: new Map([
        [hexKey('aa'), { weight: 60n, stake: 300_000n * TON }],
        [hexKey('bb'), { weight: 80n, stake: 400_000n * TON }],
      ]),
      complaints: [hexKey('bb'), hexKey('bb')],
    },
    { id: 1_699_065_536, unfreezeAt: 1_699_200_000, totalStake: 0n, bonuses: 0n, frozen: new Map(), complaints: [] },
  ];

  it('reads frozen stakes and complaints from toncenter JSON (an empty dictionary as an empty nested list) and from a liteserver stack', () => {
    const json = [
      [
        'list',
        {
          '@type': 'tvm.list',
          elements: [
            tuple(num(1_699_000_000), num(1_699_100_000), num(32768), num(12345), cell(frozen), num(700_000n * TON), num(1_234_567_890_123n), cell(complaints)),
            tuple(num(1_699_065_536), num(1_699_200_000), num(32768), num(6789), list(), num(0), num(0), list()),
          ],
        },
      ],
    ];
    expect(readPastElections(readStack(json))).toEqual(expected);
    const stack: TupleItem[] = [
      pair(
        {
          type: 'tuple',
          items: [
            int(1_699_000_000),
            int(1_699_100_000),
            int(32768),
            int(12345),
            { type: 'cell', cell: frozen },
            int(700_000n * TON),
            int(1_234_567_890_123n),
            { type: 'cell', cell: complaints },
          ],
        },
        pair(
          { type: 'tuple', items: [int(1_699_065_536), int(1_699_200_000), int(32768), int(6789), { type: 'null' }, int(0), int(0), { type: 'null' }] },
          { type: 'null' },
        ),
      ),
    ];
    expect(readPastElections(viaLiteserver(stack))).toEqual(expected);
  });
});
