import { describe, expect, it } from 'vitest';
import { jettonsSnapshotFor, type JettonsSnapshot } from '../../src/domain/jettons.js';
import { decodeJettons, encodeJettons } from '../../src/features/jettons/file.js';
import { partFile } from '../../src/snapshot/persisted-file.js';

const record = (wallet: string | null, balance: string, fetchedAt: number) => ({
  wallet,
  balance,
  lastTransactionLt: wallet === null ? null : '60000000000123',
  codeHash: wallet === null ? null : 'Y29kZQ==',
  dataHash: null,
  fetchedAt,
  upstream: 'sim',
});

describe('the jettons snapshot file', () => {
  it('is named beside the snapshot', () => {
    expect(partFile('/var/lib/tonwatch/snapshot.json', 'jettons')).toBe('/var/lib/tonwatch/snapshot.jettons.json');
    expect(partFile('/data/state', 'jettons')).toBe('/data/state.jettons.json');
  });

  it('reads back what it wrote: records, owners without a wallet, a balance past 2^53, decimals read from masters, times through the wall clock', () => {
    const snapshot: JettonsSnapshot = {
      jettons: new Map([
        [
          'USDT',
          new Map([
            ['0:AA', record('0:BB', '123456789012345678901234', 1_000)],
            ['0:CC', record(null, '0', 2_000)],
          ]),
        ],
      ]),
      fetchedAt: 2_000,
      decimals: new Map([['0:MASTER', 6]]),
    };
    const wallOffset = 1_800_000_000_000;
    const text = encodeJettons(snapshot, wallOffset);
    expect(text).toContain('"123456789012345678901234"');
    const decoded = decodeJettons(Buffer.from(text), (wall) => wall - wallOffset);
    expect(decoded).toEqual({ ok: true, snapshot });
  });

  it('says why a broken or foreign file is not read', () => {
    expect(decodeJettons(Buffer.from('{not json'), (t) => t)).toMatchObject({ ok: false, problem: expect.stringMatching(/^not valid JSON/) as string });
    const foreign = JSON.stringify({ format: 'tonwatch-snapshot', part: 'wallets', version: 1, fetchedAt: 0, jettons: {} });
    expect(decodeJettons(Buffer.from(foreign), (t) => t)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^not a tonwatch-snapshot jettons file: part/) as string,
    });
    const negative = JSON.stringify({
      format: 'tonwatch-snapshot',
      part: 'jettons',
      version: 1,
      fetchedAt: 0,
      jettons: { X: [['0:AA', null, '-1', null, null, null, 0, 's']] },
    });
    expect(decodeJettons(Buffer.from(negative), (t) => t).ok).toBe(false);
  });
});

describe('a jetton whose master changed in the config', () => {
  it("drops the name's records (another token's balances) and keeps the rest; the same snapshot when nothing moved", () => {
    const usdt = { name: 'USDT', master: '0:NEW', masterAsWritten: '0:NEW', decimals: 6 };
    const not = { name: 'NOT', master: '0:NOT', masterAsWritten: '0:NOT', decimals: 9 };
    const snapshot: JettonsSnapshot = {
      jettons: new Map([
        ['USDT', new Map([['0:AA', record('0:BB', '5', 1)]])],
        ['NOT', new Map([['0:AA', record('0:CC', '7', 1)]])],
      ]),
      fetchedAt: 1,
      masters: new Map([
        ['USDT', '0:OLD'],
        ['NOT', '0:NOT'],
      ]),
    };
    const view = jettonsSnapshotFor(snapshot, [usdt, not]);
    expect([...(view?.jettons.keys() ?? [])]).toEqual(['NOT']);
    expect(view?.masters).toEqual(new Map([['NOT', '0:NOT']]));
    expect(jettonsSnapshotFor(snapshot, [{ ...usdt, master: '0:OLD' }, not])).toBe(snapshot);
    // A file written before masters were kept: taken as it is.
    expect(jettonsSnapshotFor({ ...snapshot, masters: undefined }, [usdt, not])?.jettons.size).toBe(2);
  });
});
