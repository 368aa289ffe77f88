// The poll-processing workload, shared by the in-process benchmark (run.mjs) and the
// fresh-process one (first-cycle.mjs): what the daemon does per cycle once the
// upstream's bodies have arrived.
import { createWalletSeriesRenderer } from '../../dist/features/wallets/series.js';
import { matchWalletAnswer } from '../../dist/accounts/wallet-mapping.js';
import { assembleWalletsSnapshot } from '../../dist/features/wallets/assemble.js';
import { parseAddress } from '../../dist/ton/address.js';
import { decodeWalletStates } from '../../dist/upstream/http/wallet-states.js';
import { createInterning } from '../../dist/domain/interning.js';
import { spawn } from 'node:child_process';
import { rawAddress, walletStatesBody } from './fixtures.mjs';

/** CPU seconds (user + system, all threads: compression runs in libuv's pool) that `work` takes. */
export async function measure(work) {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/**
 * `generations` answers for `total` watched wallets (100 bodies of 1000 each, in
 * toncenter's order, not the watchlist's; in each later generation every wallet has sent
 * a transaction), the watchlist, and `cycle(bodies, previous, renderer, interning?)`: JSON.parse,
 * decode (the client's decoder), match by address against the previous cycle, assemble
 * the snapshot in watchlist order, render the metrics. Returns the snapshot. States are
 * packed with one interning for the workload, as the daemon packs them.
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
  // As in the daemon (features/wallets/index.ts): one interning for the process, so changed states are packed as it packs
  // them; a new one for a cycle that stands for a fresh start.
  const processInterning = createInterning();
  const cycle = async (bodies, previous, renderer, interning = processInterning) => {
    const found = new Map();
    for (const b of bodies) {
      const asked = watchlist.slice(b.from, b.from + 1000).map((w) => w.raw);
      const decoded = decodeWalletStates(JSON.parse(b.text));
      if (!decoded.success) throw decoded.error;
      matchWalletAnswer(asked, decoded.data, { fetchedAt: Date.now(), upstream: 'bench', interning }, previous?.wallets, found);
    }
    const snapshot = assembleWalletsSnapshot(watchlist, found, previous?.wallets, Date.now());
    await renderer.render(snapshot, Date.now());
    return snapshot;
  };
  return { answers, watchlist, newRenderer, newInterning: createInterning, cycle };
}

/** The in-process micro-benchmark of poll processing: states per CPU-second, nothing cached, steady, every wallet changed. */
export async function pollProcessing(total) {
  const { answers: generations, newRenderer, newInterning, cycle: run } = processingWorkload(total);
  const renderer = newRenderer();
  // Cycles use the process's one renderer unless given a new one; the previous cycle's
  // records are passed in so unchanged wallets keep their state.
  const cycle = (bodies, previous, render = renderer, interning = undefined) => run(bodies, previous, render, interning);
  const [first, second] = generations;
  // A daemon runs cycle after cycle: warm up first (the code compiled, as in a daemon
  // past its first minutes).
  await cycle(first, undefined, newRenderer(), newInterning());
  const parseAll = () => first.forEach((b) => JSON.parse(b.text));
  await measure(parseAll);
  // Baseline: JSON.parse alone, the floor of any processing.
  let baseline = Infinity;
  for (let i = 0; i < 3; i += 1) baseline = Math.min(baseline, await measure(parseAll));
  // Each kind is measured over three consecutive cycles after one of the same kind, so the
  // garbage collector's debt from one kind does not land on the other, and each cycle's
  // share of it is counted. The best of three such rounds is kept, as with the HTTP runs:
  // other tenants of this shared machine only ever add CPU time.
  const CYCLES = 3;
  const ROUNDS = 3;
  const averaged = async (work) => {
    await work();
    let best = Infinity;
    for (let round = 0; round < ROUNDS; round += 1) {
      const seconds = await measure(async () => {
        for (let i = 0; i < CYCLES; i += 1) await work();
      });
      best = Math.min(best, seconds / CYCLES);
    }
    return best;
  };
  // Nothing cached, as in the first cycle after a start without a snapshot: no previous
  // states to compare with, nothing rendered or encoded yet, and nothing else held
  // (measured first, before any cycle's snapshot is kept) …
  const cold = await averaged(() => cycle(first, undefined, newRenderer(), newInterning()));
  // … the steady state: wallets that did not change keep their state and metric lines …
  let previous = await cycle(first, undefined);
  const steady = await averaged(async () => (previous = await cycle(first, previous)));
  // … and every wallet changed since the last cycle (generations alternate).
  let turn = 0;
  const changed = await averaged(async () => (previous = await cycle((turn += 1) % 2 === 1 ? second : first, previous)));
  return { total, steady: total / steady, changed: total / changed, cold: total / cold, jsonParseOnly: total / baseline };
}

/**
 * CPU seconds of one processing cycle in a fresh process (nothing compiled, the heap not
 * grown): a daemon's very first cycle. Best of three processes.
 */
export async function firstCycleInFreshProcess(total) {
  let best = Infinity;
  for (let run = 0; run < 3; run += 1) {
    const child = spawn(process.execPath, [...process.execArgv, new URL('./first-cycle.mjs', import.meta.url).pathname, String(total)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    child.stdout.on('data', (c) => (text += c));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) throw new Error(`first-cycle.mjs exited with ${code}`);
    best = Math.min(best, JSON.parse(text).seconds);
  }
  return best;
}
