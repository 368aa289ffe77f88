// The poll-processing workload, shared by the in-process benchmark (run.mjs) and the
// fresh-process one (first-cycle.mjs): what the daemon does per cycle once the
// upstream's bodies have arrived.
import { createWalletSeriesRenderer } from '../../dist/metrics/wallet-series.js';
import { assembleWalletsSnapshot, matchWalletAnswer } from '../../dist/poll/wallet-mapping.js';
import { parseAddress } from '../../dist/ton/address.js';
import { decodeWalletStates } from '../../dist/upstream/wallet-states.js';
import { rawAddress, walletStatesBody } from './fixtures.mjs';

/** CPU seconds (user + system, all threads) that `work` takes. */
export function measure(work) {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/**
 * `generations` answers for `total` watched wallets (100 bodies of 1000 each, in
 * toncenter's order, not the watchlist's; in each later generation every wallet has sent
 * a transaction), the watchlist, and `cycle(bodies, previous, renderer)`: JSON.parse,
 * decode (the client's decoder), match by address against the previous cycle, assemble
 * the snapshot in watchlist order, render the metrics. Returns the snapshot.
 */
export function processingWorkload(total, generations = 2) {
  const answers = Array.from({ length: generations }, (_, generation) => {
    const bodies = [];
    for (let from = 0; from < total; from += 1000) bodies.push({ from, text: walletStatesBody(from, Math.min(total, from + 1000), generation) });
    return bodies;
  });
  const watchlist = Array.from({ length: total }, (_, i) => {
    const parsed = parseAddress(rawAddress(i));
    return { raw: parsed.value.raw, name: `w${i}`, labels: {}, minBalanceTons: undefined };
  });
  // As in the daemon: one renderer for the process, labels cached per watched wallet.
  const newRenderer = () => createWalletSeriesRenderer({ watchlist: () => watchlist, maxAgeSeconds: () => 300, testnet: () => false });
  const cycle = (bodies, previous, renderer) => {
    const found = new Map();
    for (const b of bodies) {
      const asked = watchlist.slice(b.from, b.from + 1000).map((w) => w.raw);
      const decoded = decodeWalletStates(JSON.parse(b.text));
      if (!decoded.success) throw decoded.error;
      matchWalletAnswer(asked, decoded.data, { fetchedAt: Date.now(), upstream: 'bench' }, previous?.wallets, found);
    }
    const snapshot = assembleWalletsSnapshot(watchlist, found, previous?.wallets, Date.now());
    renderer.render({ queueSizes: null, wallets: snapshot }, Date.now());
    return snapshot;
  };
  return { answers, watchlist, newRenderer, cycle };
}
