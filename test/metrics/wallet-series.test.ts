import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { GzipPart } from '../../src/metrics/gzip-members.js';
import { createLineWriter } from '../../src/metrics/line-writer.js';
import { writeTons } from '../../src/features/wallets/series-lines.js';
import { createWalletSeriesCaches, createWalletSeriesRenderer, renderWalletSeries } from '../../src/features/wallets/series.js';
import { createRandom } from '../../src/sim/random.js';
import type { ServedWalletState } from '../../src/domain/wallet-state.js';
import type { WalletRecord } from '../../src/accounts/types.js';
import { ADDR, record, walletState, walletsSnapshot, watched } from '../helpers/wallets.js';
import { rawAddress } from '../helpers/addresses.js';

/** The text of rendered parts: one gzip stream of concatenated members. */
const text = (parts: readonly GzipPart[]) => (parts.length === 0 ? '' : gunzipSync(Buffer.concat(parts.map((part) => part.gzip))).toString('utf8'));
const samples = async (parts: Promise<readonly GzipPart[]>) =>
  text(await parts)
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'));

describe('wallet snapshot → metrics', () => {
  it.each([
    ['0', '0'],
    ['1', '0.000000001'],
    ['1500000000', '1.5'],
    ['1000000000', '1'],
    ['123456789012345678901', '123456789012.345678901'],
    ['000150', '0.00000015'],
    ['0000', '0'],
    ['1000000000000', '1000'],
    ['999999999', '0.999999999'],
  ])('formats %s nanotons as %s TON exactly', (nano, tons) => {
    const out = createLineWriter(4);
    writeTons(out, nano);
    expect(out.take().toString()).toBe(tons);
  });

  it("exports every wallet series with the entry's labels", async () => {
    const a = watched(ADDR.a, { name: 'hot-1', labels: { team: 'payments', env: 'prod' }, minBalanceTons: 100 });
    const rendered = renderWalletSeries({
      wallets: walletsSnapshot([record(ADDR.a, walletState(ADDR.a, { extra_currencies: { '100': '42' } }))]),
      watchlist: [a],
      now: 1_000_000,
      maxAgeSeconds: 300,
      testnet: false,
    });
    const base = `address="${ADDR.a}",name="hot-1",env="prod",team="payments"`;
    expect(await samples(rendered)).toEqual([
      `ton_wallet_min_balance_tons{${base}} 100`,
      `ton_wallet_status{${base},status="active"} 1`,
      `ton_wallet_balance_tons{${base}} 1.5`,
      `ton_wallet_seqno{${base}} 7`,
      `ton_wallet_last_transaction_lt{${base}} 50000000857100`,
      `ton_wallet_info{${base},user_friendly="UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE",wallet_type="wallet v4 r2",wallet_id="698983191"} 1`,
      `ton_wallet_extra_currency_balance{${base},currency="100"} 42`,
    ]);
  });

  it('exports only status "unknown" for an account the upstream does not know, and nothing for stale data', async () => {
    const rendered = renderWalletSeries({
      wallets: walletsSnapshot([record(ADDR.a, null), record(ADDR.b, walletState(ADDR.b), 1_000_000 - 301_000)]),
      watchlist: [watched(ADDR.a), watched(ADDR.b)],
      now: 1_000_000,
      maxAgeSeconds: 300,
      testnet: false,
    });
    expect(await samples(rendered)).toEqual([`ton_wallet_status{address="${ADDR.a}",name="0:2902",status="unknown"} 1`]);
  });

  it('leaves out seqno and wallet fields for uninit accounts', async () => {
    const state = walletState(ADDR.b, { status: 'uninit', is_wallet: false, seqno: null, wallet_type: null, wallet_id: null, code_hash: null });
    const rendered = await renderWalletSeries({
      wallets: walletsSnapshot([record(ADDR.b, state)]),
      watchlist: [watched(ADDR.b)],
      now: 1_000_000,
      maxAgeSeconds: 300,
      testnet: true,
    });
    expect(text(rendered)).not.toContain('ton_wallet_seqno');
    expect(text(rendered)).toContain('status="uninit"');
    // Uninit: non-bounceable, testnet flag from config.
    expect(text(rendered)).toMatch(/user_friendly="0Q[^"]+",wallet_type="",wallet_id=""/);
  });

  it("finds every wallet's record when the snapshot is not in watchlist order", async () => {
    const a = watched(ADDR.a);
    const b = watched(ADDR.b);
    const c = watched(ADDR.c);
    const snapshot = walletsSnapshot([
      record(ADDR.c, walletState(ADDR.c, { balance: '3000000000' })),
      record(ADDR.a, walletState(ADDR.a, { balance: '1000000000' })),
    ]);
    const rendered = await samples(renderWalletSeries({ wallets: snapshot, watchlist: [a, b, c], now: 1_000_000, maxAgeSeconds: 300, testnet: false }));
    expect(rendered.filter((l) => l.startsWith('ton_wallet_balance_tons'))).toEqual([
      `ton_wallet_balance_tons{address="${ADDR.a}",name="${a.name}"} 1`,
      `ton_wallet_balance_tons{address="${ADDR.c}",name="${c.name}"} 3`,
    ]);
  });

  it('follows wallets being added, changed and removed, re-rendering only when something changed', async () => {
    let watchlist = [watched(ADDR.a)];
    let snapshot = walletsSnapshot([record(ADDR.a, walletState(ADDR.a))]);
    const renderer = createWalletSeriesRenderer({ watchlist: () => watchlist, maxAgeSeconds: () => 300, testnet: () => false });
    let previous: readonly GzipPart[] | null = null;
    /** Renders at `at`: a new rendering after each change, and the very same one when asked again with nothing changed. */
    const r = async (at: number) => {
      const rendered = await renderer.render(snapshot, at);
      expect(rendered).not.toBe(previous);
      expect(await renderer.render(snapshot, at + 1)).toBe(rendered);
      expect(await renderer.render(snapshot, at + 250)).toBe(rendered);
      previous = rendered;
      return text(rendered);
    };
    expect(await r(1_000_000)).toContain(`ton_wallet_balance_tons{address="${ADDR.a}",name="0:2902"} 1.5`);

    // Added
    watchlist = [watched(ADDR.a), watched(ADDR.b)];
    snapshot = walletsSnapshot([record(ADDR.a, walletState(ADDR.a)), record(ADDR.b, walletState(ADDR.b, { balance: '2000000000' }))]);
    expect(await r(1_001_000)).toContain(`ton_wallet_balance_tons{address="${ADDR.b}",name="0:1111"} 2`);
    // Changed
    snapshot = walletsSnapshot([record(ADDR.a, walletState(ADDR.a, { balance: '1' })), record(ADDR.b, walletState(ADDR.b))]);
    expect(await r(1_002_000)).toContain(`ton_wallet_balance_tons{address="${ADDR.a}",name="0:2902"} 0.000000001`);
    // Removed from the watchlist: gone at once, even before the next poll prunes the snapshot.
    watchlist = [watched(ADDR.b)];
    const removed = await r(1_003_000);
    expect(removed).not.toContain(ADDR.a);
    // Turned stale: gone once maxAgeSeconds pass, and only then re-rendered.
    expect(await renderer.render(snapshot, 1_000_000 + 300_000)).toBe(previous);
    expect(text(await renderer.render(snapshot, 1_000_000 + 300_000))).toContain(ADDR.b);
    expect(await r(1_000_000 + 300_001)).not.toContain('ton_wallet_balance_tons');
  });

  it('renders with its caches byte for byte what it renders without them, through random changes', async () => {
    const random = createRandom(11);
    const pick = <T>(values: readonly T[]): T => random.pick(values);
    // 2,500 wallets: three blocks, the last one partial.
    const watchlist = Array.from({ length: 2500 }, (_, i) => {
      const raw = rawAddress(i);
      // Names and labels plain, escaped, and (in the middle block) not ASCII.
      return watched(raw, {
        name: i > 1000 && i < 1010 ? `кошелёк ${i}` : `w${i}`,
        minBalanceTons: i % 3 === 0 ? i : undefined,
        labels: i % 5 === 0 ? { team: `t"${i % 2}`, zone: 'eu' } : {},
      });
    });
    const changes: ((state: ServedWalletState) => Partial<ServedWalletState>)[] = [
      (s) => ({ balance: String(BigInt(s.balance ?? '0') + 1n) }),
      (s) => ({ seqno: (s.seqno ?? 0) + 1 }),
      (s) => ({ last_transaction_lt: String(BigInt(s.last_transaction_lt ?? '0') + 7n) }),
      () => ({ status: pick(['active', 'uninit', 'frozen']) }),
      () => ({ is_wallet: pick([true, false]) }),
      () => ({ wallet_type: pick(['wallet v4 r2', 'wallet v5 r1', null]) }),
      () => ({ wallet_id: pick([698983191, 2147483409, null]) }),
      () => ({ extra_currencies: pick([{}, { '100': '5' }, { '100': '6', '239': '1' }]) }),
      () => ({ balance: null, seqno: null, last_transaction_lt: null }),
    ];
    let records = new Map<string, WalletRecord>(watchlist.map((w, i) => [w.raw, record(w.raw, walletState(w.raw, { balance: String(i * 1_000_000) }))]));
    const caches = createWalletSeriesCaches();
    let current = watchlist;
    for (let round = 0; round < 80; round += 1) {
      const next = new Map(records);
      // Mostly one or two changes, so that a family kept wrongly is not hidden by another
      // change to the same block; now and then many.
      const count = pick([1, 1, 2, 300]);
      for (let k = 0; k < count; k += 1) {
        const w = pick(watchlist);
        const before = next.get(w.raw);
        const roll = random.next();
        if (roll < 0.05) next.delete(w.raw);
        else if (roll < 0.1) next.set(w.raw, record(w.raw, null));
        else if (roll < 0.15)
          next.set(w.raw, {
            ...(before ?? record(w.raw, walletState(w.raw))),
            addressBook: pick([{ user_friendly: 'UQx', domain: null }, { user_friendly: 'EQy', domain: null }, null]),
          });
        else if (roll < 0.2) next.set(w.raw, record(w.raw, before?.state ?? walletState(w.raw), pick([1_000_000, 600_000])));
        else {
          const state = before?.state ?? walletState(w.raw);
          next.set(w.raw, { ...(before ?? record(w.raw, state)), state: { ...state, ...pick(changes)(state) } });
        }
      }
      records = next;
      // Now and then the watchlist changes too: a wallet leaves, or the order shifts.
      if (round % 17 === 16) current = current.filter((_, i) => i !== round * 13);
      const testnet = round % 23 === 22;
      const options = { wallets: { wallets: records, fetchedAt: 1_000_000 }, watchlist: current, now: 1_000_000, maxAgeSeconds: 300, testnet };
      const rendered = text(await renderWalletSeries({ ...options, caches }));
      expect(rendered, `round ${round}`).toBe(text(await renderWalletSeries(options)));
      if (round === 0) expect(rendered).toContain('name="кошелёк 1005",team="t\\"1",zone="eu"');
    }
  });
});
