import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { matchWalletAnswer } from '../../src/accounts/wallet-mapping.js';
import { createInterning } from '../../src/domain/interning.js';
import type { WalletStatesAnswer } from '../../src/domain/upstream.js';
import { renderWalletSeries } from '../../src/features/wallets/series.js';
import { createWalletStatesHandler } from '../../src/features/wallets/v3.js';
import { decodeWalletsBytes, encodeWallets } from '../../src/features/wallets/file.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import type { ServedResponse } from '../../src/serve/response.js';
import { createRandom } from '../../src/sim/random.js';
import { createSimWallets } from '../../src/sim/wallets.js';
import { decodeWalletStates, decodeWalletStatesQuickly } from '../../src/upstream/http/wallet-states.js';
import { userFriendly } from '../../src/ton/address.js';
import { bodyText } from '../helpers/response.js';
import { watched } from '../helpers/wallets.js';

/**
 * The served bytes, pinned: a walletStates answer of the simulator (every account kind it
 * makes: v3r2, v4r2 and v5r1 wallets, a plain contract, uninit, frozen and nonexistent
 * accounts, one in the masterchain, extra currencies), with balances, an lt and an extra
 * currency past 2^53, taken through the poll's decoding and matching into a snapshot, then
 * served as walletStates (a mainnet answer asked raw, a testnet one asked user-friendly) and
 * rendered as the wallet series. The answers must equal the files in test/fixtures/golden/
 * byte for byte: whatever the snapshot holds its states in, clients and Prometheus see the
 * same. `GOLDEN_UPDATE=1` writes the files anew (a change of served bytes is then in the
 * diff, to be justified by the commit).
 */

const GOLDEN = fileURLToPath(new URL('../fixtures/golden/', import.meta.url));
const FETCHED_AT = 1_700_000_000_000;
const NOW = FETCHED_AT + 2_500;
const ACCOUNTS = 24;

/** Past 2^53 (9,007,199,254,740,992): exact only as decimal strings. */
const BIG = {
  balance: '123456789012345678901',
  lt: '9007199254740993',
  currency: '18446744073709551617',
};

function upstreamBody(testnet: boolean): { body: unknown; asked: string[] } {
  const wallets = createSimWallets({ random: createRandom(7), seed: 7, count: ACCOUNTS, testnet, maxUrlBytes: 1_000_000 });
  const asked = wallets.accounts().map((a) => a.raw);
  const url = new URL(`http://sim.invalid/api/v3/walletStates?${asked.map((a) => `address=${encodeURIComponent(a)}`).join('&')}`);
  const answer = wallets.answer(url);
  if (answer.status !== 200) throw new Error(`the simulator answered ${answer.status}`);
  const body = JSON.parse(answer.body) as { wallets: Record<string, unknown>[] };
  // Two active wallets carry what only strings hold exactly.
  const active = body.wallets.filter((w) => w['status'] === 'active' && w['is_wallet'] === true);
  const [first, second] = active;
  if (first === undefined || second === undefined) throw new Error('the simulator made fewer than two active wallets');
  first['balance'] = BIG.balance;
  first['last_transaction_lt'] = BIG.lt;
  second['extra_currencies'] = { '100': BIG.currency, '7': '1' };
  return { body, asked };
}

/** The states as the poll keeps them: decoded (both decoders agree), matched, interned. */
function polledSnapshot(testnet = false) {
  const { body, asked } = upstreamBody(testnet);
  const quick = decodeWalletStatesQuickly(structuredClone(body));
  const checked = decodeWalletStates(structuredClone(body));
  if (quick === null || !checked.success) throw new Error('the answer does not decode');
  expect(quick).toEqual(checked.data);
  const answer = quick as WalletStatesAnswer;
  const { found, missing } = matchWalletAnswer(asked, answer, { fetchedAt: FETCHED_AT, upstream: 'sim', interning: createInterning() });
  return { snapshot: { fetchedAt: FETCHED_AT, wallets: found }, asked, missing };
}

const sync = (answer: ServedResponse | Promise<ServedResponse>): ServedResponse => {
  if (answer instanceof Promise) throw new Error('expected a synchronous answer');
  return answer;
};

/** The file's content, or (GOLDEN_UPDATE=1) the content written to it. */
function golden(name: string, actual: string): string {
  const file = `${GOLDEN}${name}`;
  if (process.env['GOLDEN_UPDATE'] === '1' || !existsSync(file)) {
    if (process.env['CI'] === 'true' && process.env['GOLDEN_UPDATE'] !== '1') throw new Error(`${file} is missing`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, actual);
  }
  return readFileSync(file, 'utf8');
}

describe('served bytes, pinned against golden files', () => {
  it('covers every account kind of the simulator, and numbers past 2^53', () => {
    const { snapshot, missing } = polledSnapshot();
    // The nonexistent accounts are in the answer too (status nonexist), so none is missing.
    expect(missing).toEqual([]);
    const states = [...snapshot.wallets.values()].map((r) => r.state);
    expect(new Set(states.map((s) => s?.status))).toEqual(new Set(['active', 'uninit', 'frozen', 'nonexist']));
    expect(new Set(states.map((s) => s?.wallet_type ?? null))).toEqual(new Set(['wallet v3 r2', 'wallet v4 r2', 'wallet v5 r1', null]));
    expect(states.some((s) => s?.balance === BIG.balance && s.last_transaction_lt === BIG.lt)).toBe(true);
    expect(states.some((s) => s?.extra_currencies['100'] === BIG.currency)).toBe(true);
  });

  it.each([
    ['mainnet, asked raw', false, 'raw'],
    ['testnet, asked user-friendly', true, 'friendly'],
  ] as const)('walletStates answers (%s) are the golden bytes', (_, testnet, form) => {
    const { snapshot, asked } = polledSnapshot(testnet);
    const served = servedAnswer(snapshot, asked, testnet, form);
    expect(served).toBe(golden(`wallet-states-${testnet ? 'testnet' : 'mainnet'}.txt`, served));
  });

  it.each([
    ['mainnet, asked raw', false, 'raw'],
    ['testnet, asked user-friendly', true, 'friendly'],
  ] as const)('walletStates answers (%s) are the golden bytes after the wallets file is written and read back', async (_, testnet, form) => {
    const { snapshot, asked } = polledSnapshot(testnet);
    const bytes = Buffer.concat([...encodeWallets(snapshot, 0)]);
    const lines = bytes.toString('utf8').split('\n');
    // Packed states and derived entries are written as held (a state past 2^64 as it came): the decimals and forms are not in the file.
    const plain = [...snapshot.wallets.values()].filter((r) => r.state?.balance !== BIG.balance && r.state?.status === 'active');
    expect(plain.length).toBeGreaterThan(10);
    for (const r of plain) expect(bytes.includes(`"${r.state?.last_transaction_lt}"`), r.raw).toBe(false);
    expect(lines.some((line) => line.includes(`"${BIG.balance}"`))).toBe(true);
    const read = await decodeWalletsBytes(bytes, (wall) => wall);
    if (!read.ok) throw new Error(read.problem);
    const served = servedAnswer(read.wallets, asked, testnet, form);
    expect(served).toBe(golden(`wallet-states-${testnet ? 'testnet' : 'mainnet'}.txt`, served));
  });

  it('the wallet series are the golden lines', async () => {
    const { snapshot, asked } = polledSnapshot();
    const watchlist = asked.map((raw, i) =>
      watched(raw, { name: `w${i}`, labels: i % 3 === 0 ? { team: 'ops' } : {}, minBalanceTons: i % 4 === 0 ? 100 : undefined }),
    );
    const read = await decodeWalletsBytes(Buffer.concat([...encodeWallets(snapshot, 0)]), (wall) => wall);
    if (!read.ok) throw new Error(read.problem);
    // As polled, and as read back from the wallets file.
    for (const wallets of [snapshot, read.wallets]) {
      const parts = await renderWalletSeries({ wallets, watchlist, now: NOW, maxAgeSeconds: 300, testnet: false });
      const text = gunzipSync(Buffer.concat(parts.map((p) => p.gzip))).toString('utf8');
      // The balance past 2^53 as an exact decimal of TON.
      expect(text).toContain(' 123456789012.345678901\n');
      expect(text).toBe(golden('wallet-series.txt', text));
    }
  });
});

/** A walletStates answer of `snapshot` for the `asked` wallets, headers and body, as served. */
function servedAnswer(snapshot: WalletsSnapshot, asked: readonly string[], testnet: boolean, form: 'raw' | 'friendly'): string {
  const addresses = asked.map((raw) => (form === 'raw' ? raw : userFriendly(Address.parseRaw(raw), { bounceable: true, testnet })));
  const response = sync(
    createWalletStatesHandler().serve(snapshot, {
      method: 'GET',
      query: addresses.map((a) => `address=${encodeURIComponent(a)}`).join('&'),
      now: NOW,
      maxAgeSeconds: 300,
      nextPollDueAt: NOW + 7_500,
      testnet,
      watched: new Set(asked),
    }),
  );
  expect(response.status).toBe(200);
  return `${JSON.stringify(response.headers, null, 1)}\n${bodyText(response)}\n`;
}
