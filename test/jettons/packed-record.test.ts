import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { JettonRecord } from '../../src/domain/jettons.js';
import { createJettonPacker, isPackedJettonRecord, plainJettonRecord } from '../../src/features/jettons/packed-record.js';
import { decodeJettons, encodeJettons } from '../../src/features/jettons/file.js';

const CODE_HASH = 'beL0/+hbvcN9HGDKpIM3ZltKJ1fJnnBhd5IbrNAcTts=';

const record = (over: Partial<JettonRecord> = {}): JettonRecord => ({
  wallet: `0:${randomBytes(32).toString('hex').toUpperCase()}`,
  balance: '1234567',
  lastTransactionLt: '50123456000003',
  codeHash: CODE_HASH,
  dataHash: randomBytes(32).toString('base64'),
  fetchedAt: 1_700_000_000_000,
  upstream: 'toncenter',
  ...over,
});

describe('packed jetton records', () => {
  it('read back every field exactly: balances up to 2^128, logical times up to 2^64, either workchain, no wallet', () => {
    const pack = createJettonPacker();
    const balances = ['0', '1', '9007199254740993', '18446744073709551615', '18446744073709551616', '123456789012345678901234', String(2n ** 128n - 1n)];
    for (const balance of balances) {
      for (const lastTransactionLt of [null, '0', '9007199254740993', '18446744073709551615']) {
        for (const over of [{}, { wallet: `-1:${'0F'.repeat(32)}` }, { wallet: null, codeHash: null, dataHash: null }, { dataHash: null }]) {
          const plain = record({ balance, lastTransactionLt, ...over });
          const packed = pack(plain);
          const none = plain.wallet === null && balance === '0' && lastTransactionLt === null && plain.dataHash === null;
          expect(isPackedJettonRecord(packed), JSON.stringify(plain)).toBe(!none);
          expect(plainJettonRecord(packed)).toStrictEqual(plain);
          expect(JSON.stringify(packed)).toBe(JSON.stringify(plain));
        }
      }
    }
  });

  it('hold the same bytes whatever was packed before (a part the record lacks is zeros)', () => {
    const pack = createJettonPacker();
    const tail = (held: JettonRecord) => (held as unknown as { t: string }).t;
    const lacking = [{ wallet: null }, { lastTransactionLt: null }, { dataHash: null }, { wallet: null, lastTransactionLt: null, dataHash: null }];
    for (const over of lacking) {
      const plain = record({ balance: String(2n ** 100n), ...over });
      pack(record({ balance: String(2n ** 128n - 1n) }));
      expect(tail(pack(plain)), JSON.stringify(over)).toBe(tail(createJettonPacker()(plain)));
    }
  });

  it('keep as it came a record whose fields would not read back the same', () => {
    const packed = createJettonPacker();
    const odd: Partial<JettonRecord>[] = [
      { wallet: `0:${'ab'.repeat(32)}` },
      { wallet: `00:${'AB'.repeat(32)}` },
      { wallet: 'EQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAM9c' },
      { balance: String(2n ** 128n) },
      { balance: '01' },
      { lastTransactionLt: '18446744073709551616' },
      { dataHash: randomBytes(32).toString('hex') },
      { dataHash: `-_${'A'.repeat(41)}=` },
      { dataHash: `${'A'.repeat(42)}B=` },
    ];
    for (const over of odd) {
      const plain = record(over);
      const held = packed(plain);
      expect(held, JSON.stringify(over)).toBe(plain);
    }
  });

  it('keep what the records of one answer share once, an owner without a jetton wallet nothing of its own', () => {
    const pack = createJettonPacker();
    const a = pack(record()) as unknown as { k: object };
    const b = pack(record()) as unknown as { k: object };
    expect(a.k).toBe(b.k);
    expect((pack(record({ fetchedAt: 1 })) as unknown as { k: object }).k).not.toBe(a.k);
    const none = (over: Partial<JettonRecord> = {}) =>
      pack(record({ wallet: null, balance: '0', lastTransactionLt: null, codeHash: null, dataHash: null, ...over }));
    expect(none()).toBe(none());
    expect(none()).toStrictEqual(plainJettonRecord(none()));
    expect(Object.isFrozen(none())).toBe(true);
    expect(none({ fetchedAt: 2 })).not.toBe(none());
    expect(none({ upstream: 'other' })).not.toBe(none());
    expect(none({ fetchedAt: 2 })).toEqual(record({ wallet: null, balance: '0', lastTransactionLt: null, codeHash: null, dataHash: null, fetchedAt: 2 }));
  });

  it('read back from the file the same, and write the same file again', () => {
    const records = new Map([
      ['0:' + '11'.repeat(32), record({ balance: String(2n ** 100n) })],
      ['0:' + '22'.repeat(32), record({ wallet: null, balance: '0', lastTransactionLt: null, codeHash: null, dataHash: null })],
      ['0:' + '33'.repeat(32), record({ wallet: `0:${'ab'.repeat(32)}` })],
    ]);
    const snapshot = { jettons: new Map([['USDT', records]]), fetchedAt: 1_700_000_000_000 };
    const text = encodeJettons(snapshot, 0);
    const decoded = decodeJettons(Buffer.from(text), (wall) => wall);
    if (!decoded.ok) throw new Error(decoded.problem);
    const read = [...decoded.snapshot.jettons.get('USDT')!.values()];
    expect(read.map(isPackedJettonRecord)).toEqual([true, false, false]);
    expect(read.map(plainJettonRecord)).toStrictEqual([...records.values()]);
    expect(encodeJettons(decoded.snapshot, 0)).toBe(text);
  });
});
