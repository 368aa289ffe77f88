// Synthetic but realistic data for the benchmarks: built from the compiled sources.
import { createHash } from 'node:crypto';
import { Address } from '@ton/core';

const b64 = (s) => createHash('sha256').update(s).digest('base64');

export function rawAddress(i) {
  return `0:${createHash('sha256').update(`bench:${i}`).digest('hex').toUpperCase()}`;
}

/**
 * One upstream walletStates body for addresses [from, to), as toncenter sends it. Each
 * `generation` is a later state of the same accounts: every wallet has sent a transaction
 * (new balance, seqno, lt and hash); the rest is as before.
 */
export function walletStatesBody(from, to, generation = 0) {
  const wallets = [];
  const addressBook = {};
  for (let i = from; i < to; i += 1) {
    const address = rawAddress(i);
    wallets.push({
      address,
      balance: String(1_000_000_000n * BigInt(i + 1) + 123n - 1_000_000n * BigInt(generation)),
      code_hash: b64('code:v4r2'),
      extra_currencies: i % 7 === 0 ? { 100: String(i) } : undefined,
      is_wallet: true,
      last_transaction_hash: b64(`tx:${i}:${generation}`),
      last_transaction_lt: String(50_000_000_000_000 + i + 1_000_000 * generation),
      seqno: (i % 5000) + generation,
      status: 'active',
      wallet_id: 698983191,
      wallet_type: 'wallet v4 r2',
    });
    // As toncenter: non-bounceable for wallets.
    addressBook[address] = {
      user_friendly: Address.parseRaw(address).toString({ urlSafe: true, bounceable: false }),
      domain: null,
      interfaces: ['wallet_v4r2'],
    };
  }
  // Real upstreams answer in no particular order: here, sorted by address (hash order).
  wallets.sort((a, b) => (a.address < b.address ? -1 : 1));
  return JSON.stringify({ wallets, address_book: addressBook, metadata: {} });
}

export function queueSnapshot() {
  const hash = b64('root');
  return {
    fetchedAt: Date.now(),
    upstream: 'toncenter',
    extMsgQueueSizeLimit: 8000,
    shards: [
      { workchain: -1, shard: '-9223372036854775808', seqno: 51149550, rootHash: hash, fileHash: hash, size: 0 },
      { workchain: 0, shard: '2305843009213693952', seqno: 56000001, rootHash: hash, fileHash: hash, size: 120 },
      { workchain: 0, shard: '6917529027641081856', seqno: 56000002, rootHash: hash, fileHash: hash, size: 5400 },
      { workchain: 0, shard: '-6917529027641081856', seqno: 56000003, rootHash: hash, fileHash: hash, size: 80 },
      { workchain: 0, shard: '-2305843009213693952', seqno: 56000004, rootHash: hash, fileHash: hash, size: 13 },
    ],
  };
}

/** The benchmark's old watchlist: one canonical raw address per line, no names (kept for information). */
export function rawWatchlist(raws) {
  return { file: raws.join('\n'), yaml: [] };
}

/**
 * A watchlist of `raws` as users write it (the README's watchlist section): the first 1 %
 * inline in the config, user-friendly, each with a name, labels and `minBalanceTons`; the
 * rest in a file of mostly user-friendly forms (bounceable `EQ…` and non-bounceable `UQ…`),
 * some raw (a few in lowercase hex), a name on every line, comment lines, trailing
 * comments and blank lines.
 */
export function realisticWatchlist(raws) {
  const inline = Math.floor(raws.length / 100);
  const yaml = ['watchlist:'];
  for (let i = 0; i < inline; i += 1) {
    const friendly = Address.parseRaw(raws[i]).toString({ urlSafe: true, bounceable: true });
    yaml.push(`  - { address: "${friendly}", name: hot-${i}, labels: { team: payments }, minBalanceTons: ${100 + (i % 50)} }`);
  }
  const lines = ['# Deposit addresses, exported from the custody system', '# address,name', ''];
  for (let i = inline; i < raws.length; i += 1) {
    if (i % 500 === 0) lines.push('', `# customers ${i}-${i + 499}`);
    const address = Address.parseRaw(raws[i]);
    const form = i % 20;
    let text;
    if (form < 12) text = address.toString({ urlSafe: true, bounceable: true });
    else if (form < 17) text = address.toString({ urlSafe: true, bounceable: false });
    else if (form < 19) text = raws[i];
    else text = raws[i].toLowerCase();
    lines.push(i % 97 === 0 ? `${text},deposit-${i} # checked by ops` : `${text},deposit-${i}`);
  }
  return { file: `${lines.join('\n')}\n`, yaml };
}
