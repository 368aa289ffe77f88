import { describe, expect, it } from 'vitest';
import type { Config, WatchedWallet } from '../../src/domain/config.js';
import type { JettonRecord, JettonSettings, JettonsSnapshot } from '../../src/domain/jettons.js';
import { jettonColumns } from '../../src/features/jettons/columns.js';
import { createWalletTable, renderWallets, type WalletTableSources } from '../../src/features/wallets/status.js';
import type { WalletColumns } from '../../src/features/provisions.js';
import { jettonRecord } from '../helpers/fixtures.js';

const NOW = 1_800_000_000_000;
const raw = (c: string) => `0:${c.repeat(64)}`;
const USDT: JettonSettings = { name: 'USDT', master: raw('1'), masterAsWritten: raw('1'), decimals: 6 };
const NOT: JettonSettings = { name: 'NOT', master: raw('2'), masterAsWritten: raw('2'), decimals: 9 };

const wallet = (c: string, name: string, extra: Partial<WatchedWallet> = {}): WatchedWallet => ({
  raw: raw(c),
  name,
  labels: {},
  minBalanceTons: undefined,
  ...extra,
});
const record = (balance: string, fetchedAt = NOW - 1000): JettonRecord => jettonRecord(raw('F'), balance, fetchedAt);

/** The wallets' table's sources: the wallets' feature's (no TON states polled) with the jettons feature's columns. */
function sources(): WalletTableSources {
  const watchlist = [
    wallet('A', 'alpha'),
    wallet('B', 'bravo', { minJettonBalance: { USDT: 100 } }),
    wallet('C', 'charlie', { jettons: ['NOT'] }),
    wallet('D', 'delta'),
  ];
  const usdt = new Map([
    [raw('A'), record('5000000')],
    [raw('B'), record('99500000')],
    [raw('C'), record('250000000')],
    // Stale: shown as no data.
    [raw('D'), record('1000000', NOW - 400_000)],
  ]);
  const not = new Map([[raw('C'), record('123456789012345678901234')]]);
  const config = { jettons: [USDT, NOT], watchJettons: ['USDT'], snapshot: { maxAgeSeconds: 300 } } as unknown as Config;
  const snapshot: JettonsSnapshot = {
    jettons: new Map([
      ['USDT', usdt],
      ['NOT', not],
    ]),
    fetchedAt: NOW - 1000,
  };
  return {
    now: NOW,
    snapshot: null,
    maxAgeSeconds: 300,
    testnet: false,
    watchlist,
    columns: [
      jettonColumns(
        () => config,
        () => snapshot,
      ),
    ],
  };
}

describe('jettons on the status page', () => {
  it('works the rows out once while the jetton snapshot and config stay the same, and again when the snapshot changes', () => {
    const maker = createWalletTable();
    const base = sources();
    let cellsAsked = 0;
    const column = base.columns[0];
    if (column === undefined) throw new Error('the fixture has a jetton column');
    const counted: WalletColumns = {
      ...column,
      cells: (wallet, now) => {
        cellsAsked += 1;
        return column.cells(wallet, now);
      },
    };
    const first = maker.page({ ...base, columns: [counted] }, '', 1);
    const asked = cellsAsked;
    expect(asked).toBe(base.watchlist.length);
    // A page later, nothing changed: the same rows, no cell asked again.
    expect(maker.page({ ...base, columns: [counted] }, '', 1).rows).toEqual(first.rows);
    expect(cellsAsked).toBe(asked);
    const moved: WalletColumns = { ...counted, version: () => [...column.version(), 'a new snapshot'] };
    maker.page({ ...base, columns: [moved] }, '', 1);
    expect(cellsAsked).toBe(2 * asked);
  });

  it('gives a column per configured jetton, in jetton units, exact, and puts a wallet under its jetton threshold among those needing attention', () => {
    const maker = createWalletTable();
    const page = maker.page(sources(), '', 1);
    expect(page.jettons).toEqual(['USDT', 'NOT']);
    expect(page.rows.map((r) => r.name)).toEqual(['bravo', 'alpha', 'charlie', 'delta']);
    const byName = Object.fromEntries(page.rows.map((r) => [r.name, r]));
    expect(byName['bravo']).toMatchObject({ attention: 'below_jetton_threshold', jettons: [{ balance: '99.5', min: 100, below: true }, { balance: null }] });
    expect(byName['charlie']?.jettons).toEqual([
      { balance: '250', min: null, below: false },
      { balance: '123456789012345.678901234', min: null, below: false },
    ]);
    // Not watched for NOT, and stale for USDT.
    expect(byName['alpha']?.jettons[1]).toEqual({ balance: null, min: null, below: false });
    expect(byName['delta']?.jettons[0]).toEqual({ balance: null, min: null, below: false });
    expect(maker.status(sources()).wallets.attention).toBe(1);
  });

  it('sorts by a jetton column, largest first, rows without a balance last; by name; and back to the default', () => {
    const maker = createWalletTable();
    expect(maker.page(sources(), '', 1, 'jetton:USDT').rows.map((r) => r.name)).toEqual(['charlie', 'bravo', 'alpha', 'delta']);
    expect(maker.page(sources(), '', 1, 'jetton:NOT').rows.map((r) => r.name)).toEqual(['charlie', 'bravo', 'alpha', 'delta']);
    expect(maker.page(sources(), '', 1, 'name').rows.map((r) => r.name)).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    const unknown = maker.page(sources(), '', 1, 'jetton:DOGE');
    expect(unknown.sort).toBe('');
    expect(unknown.rows.map((r) => r.name)).toEqual(['bravo', 'alpha', 'charlie', 'delta']);
  });

  it('draws the jetton headers as sort links, the current one marked, and the cell under its threshold marked', () => {
    const maker = createWalletTable();
    const page = maker.page(sources(), '', 1, 'jetton:USDT');
    const html = renderWallets(maker.status(sources()), page);
    expect(html).toContain('<th scope="col" aria-sort="descending"><a href="/?q=&amp;sort=#wallets" data-sort="">USDT ▾</a></th>');
    expect(html).toContain('<a href="/?q=&amp;sort=jetton%3ANOT#wallets" data-sort="jetton:NOT">NOT</a>');
    expect(html).toContain('<td class="num below" title="minimum 100">99.5</td>');
    expect(html).toContain('below a jetton threshold');
  });
});
