// Where a polling daemon's heap goes per watched wallet: the real tonwatch process polls
// the simulator (HEAP_WALLETS accounts, default 100,000), is scraped once (gzip) and asked
// for walletStates of 100 random watched addresses 300 times; then V8 writes a heap
// snapshot (--heapsnapshot-signal), and this groups its objects by what holds them (the
// name of a property that refers to it, else the array holding it: `state`, `last_transaction_hash`, …) and
// prints the groups' bytes per wallet. `HEAP_JETTONS=1`: every wallet also watches the
// simulator's SIMUSD, and the snapshot is taken once the jetton cycle is done too (the
// difference from a run without is what a jetton record holds). Not part of
// `npm run bench`: `npm run bench:heap`.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, exited, getWhenUp, NODE_FLAGS, rssOf, simulatorSetup } from './support.mjs';

const wallets = Number(process.env.HEAP_WALLETS ?? 100_000);
const withJettons = process.env.HEAP_JETTONS === '1';
const MAIN = new URL('../../dist/main.js', import.meta.url).pathname;

/** Self sizes grouped by node type and the name of the first strong edge to it (or the node's own name). */
function groups(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const {
    node_fields: nf,
    node_types: [types],
    edge_fields: ef,
    edge_types: [edgeTypes],
  } = snapshot.snapshot.meta;
  const { nodes, edges, strings } = snapshot;
  const [N, E] = [nf.length, ef.length];
  const [type, name, size, edgeCount] = ['type', 'name', 'self_size', 'edge_count'].map((f) => nf.indexOf(f));
  const [edgeType, edgeName, toNode] = ['type', 'name_or_index', 'to_node'].map((f) => ef.indexOf(f));
  // A property's name says more than an array's: properties first, then elements.
  const holder = new Map();
  for (const wanted of ['property', 'element']) {
    for (let i = 0, e = 0; i < nodes.length; i += N) {
      for (let k = 0; k < nodes[i + edgeCount]; k += 1, e += E) {
        const to = edges[e + toNode];
        if (holder.has(to) || edgeTypes[edges[e + edgeType]] !== wanted) continue;
        holder.set(to, wanted === 'property' ? `.${strings[edges[e + edgeName]]}` : `[] of ${strings[nodes[i + name]].slice(0, 24) || types[nodes[i + type]]}`);
      }
    }
  }
  const totals = new Map();
  let all = 0;
  for (let i = 0; i < nodes.length; i += N) {
    const t = types[nodes[i + type]];
    const key = `${t} ${holder.get(i) ?? strings[nodes[i + name]].slice(0, 40)}`;
    totals.set(key, (totals.get(key) ?? 0) + nodes[i + size]);
    all += nodes[i + size];
  }
  return { all, totals };
}

const { sim, port, config, addresses } = await simulatorSetup(wallets, ['--max-url-bytes', '1000000'], {
  rps: 400,
  schedule: '{ queueSizes: "*/5 * * * * *", wallets: "0 0 * * * *" }',
  extraConfig: withJettons
    ? ['jettons: { SIMUSD: { master: "EQCF5_AHV0PD3CQavKkDW1oSZnc4O5zw2JqwtWiuzJuFsrMV", decimals: 6 } }', 'watchJettons: [SIMUSD]']
    : [],
});
const dir = benchDir('tonwatch-bench-heap-');
const daemon = spawn(process.execPath, [...NODE_FLAGS, '--heapsnapshot-signal=SIGUSR2', MAIN, '--config', config], {
  cwd: dir,
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  await new Promise((resolve) => {
    let text = '';
    daemon.stdout.on('data', (chunk) => {
      text = (text + chunk).slice(-10_000);
      if (text.includes('"wallet cycle done"')) resolve();
    });
  });
  daemon.stdout.resume();
  const base = `http://127.0.0.1:${port}`;
  await getWhenUp(`${base}/metrics`, { 'accept-encoding': 'gzip' });
  for (let waited = 0; withJettons; waited += 1) {
    const text = await (await fetch(`${base}/metrics`)).text();
    if (/^tonwatch_poll_duration_seconds_count\{[^}]*query="jetton_wallets"[^}]*\} [1-9]/m.test(text)) break;
    if (waited > 900) throw new Error('no jetton cycle within 15 minutes');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  for (let i = 0; i < 300; i += 1) {
    const asked = Array.from({ length: 100 }, () => addresses[Math.floor(Math.random() * wallets)]);
    await getWhenUp(`${base}/api/v3/walletStates?${asked.map((a) => `address=${a}`).join('&')}`);
  }
  const rss = rssOf(daemon.pid);
  daemon.kill('SIGUSR2');
  let file;
  for (let waited = 0; file === undefined && waited < 300; waited += 1) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const written = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot'));
    // Written when the daemon has gone on logging past it: wait for the size to settle.
    if (written !== undefined && (await settledSize(join(dir, written)))) file = join(dir, written);
  }
  if (file === undefined) throw new Error('no heap snapshot within 300 s');
  const { all, totals } = groups(file);
  const perWallet = (bytes) => `${(bytes / wallets).toFixed(1).padStart(7)} B`;
  console.log(
    `heap at ${wallets.toLocaleString('en')} wallets${withJettons ? ' each watching SIMUSD' : ''}: ${(all / 1e6).toFixed(1)} MB (${perWallet(all)} a wallet); RSS ${(rss / 1e6).toFixed(1)} MB`,
  );
  for (const [key, bytes] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${perWallet(bytes)}  ${key}`);
} finally {
  daemon.kill('SIGKILL');
  sim.kill('SIGKILL');
  await Promise.all([exited(daemon), exited(sim)]);
}

async function settledSize(path) {
  const before = statSync(path).size;
  await new Promise((resolve) => setTimeout(resolve, 2000));
  return before > 0 && statSync(path).size === before;
}
