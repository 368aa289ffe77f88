// A benchmark server in its own process: `tonwatch` (the real server, routes and
// snapshot) or `bare` (node:http answering the very bytes tonwatch would send).
// Usage: node server.mjs <tonwatch|bare> <wallets>; prints {"port":N,"paths":{…}} when ready.
import { createServer } from 'node:http';
import { pino } from 'pino';
import { loadConfig } from '../../dist/config/load.js';
import { createMetricsExposition } from '../../dist/metrics/exposition.js';
import { createSelfMetrics } from '../../dist/metrics/registry.js';
import { createWalletSeriesRenderer } from '../../dist/metrics/wallet-series.js';
import { matchWalletAnswer } from '../../dist/poll/wallet-mapping.js';
import { createRoutes } from '../../dist/serve/routes.js';
import { createHttpServer, listen } from '../../dist/serve/server.js';
import { createSnapshotStore } from '../../dist/snapshot/store.js';
import { decodeWalletStates } from '../../dist/upstream/wallet-states.js';
import { queueSnapshot, rawAddress, walletStatesBody } from './fixtures.mjs';

const [mode, walletCount = '10000'] = process.argv.slice(2);
const count = Number(walletCount);
const logger = pino({ level: 'silent' });

const lines = Array.from({ length: count }, (_, i) => `${rawAddress(i)},bench-${i}`).join('\n');
const { config } = await loadConfig('/bench/tonwatch.yml', {
  env: {},
  cwd: '/bench',
  readFile: async (p) => (p.endsWith('.yml') ? 'listen: { host: 127.0.0.1, port: 0 }\nwatchlistFiles: [w.txt]\nsnapshot: { maxAgeSeconds: 100000 }\n' : lines),
  fileExists: async () => true,
});
const store = createSnapshotStore();
store.replaceQueueSizes(queueSnapshot());
const records = new Map();
for (let from = 0; from < count; from += 1000) {
  const asked = config.watchlist.slice(from, from + 1000).map((w) => w.raw);
  const decoded = decodeWalletStates(JSON.parse(walletStatesBody(from, Math.min(count, from + 1000))));
  if (!decoded.success) throw decoded.error;
  const answer = decoded.data;
  for (const [raw, record] of matchWalletAnswer(asked, answer, { fetchedAt: Date.now(), upstream: 'bench' }).found) records.set(raw, record);
}
store.replaceWallets({ wallets: records, fetchedAt: Date.now() });

const self = createSelfMetrics({
  version: 'bench',
  nodeVersion: process.version,
  defaultMetrics: false,
  health: { up: () => true, snapshotAgeSeconds: () => 1, lastSuccessAt: () => Date.now(), watchlistSize: () => count },
});
const metrics = createMetricsExposition({
  self,
  snapshot: () => store.current(),
  now: () => Date.now(),
  maxAgeSeconds: () => config.snapshot.maxAgeSeconds,
  wallets: createWalletSeriesRenderer({ watchlist: () => config.watchlist, maxAgeSeconds: () => config.snapshot.maxAgeSeconds, testnet: () => false }),
});
const settings = { maxAgeSeconds: config.snapshot.maxAgeSeconds, testnet: false, watched: new Set(config.watchlist.map((w) => w.raw)), upstreams: [] };
const routes = createRoutes({
  version: 'bench',
  now: () => Date.now(),
  snapshot: () => store.current(),
  settings: () => settings,
  nextPollDueAt: () => Date.now() + 5000,
  metrics,
});

const paths = {
  v2: '/api/v2/getOutMsgQueueSizes',
  v3_100: `/api/v3/walletStates?${config.watchlist
    .slice(0, 100)
    .map((w) => `address=${encodeURIComponent(w.raw)}`)
    .join('&')}`,
  v3_1024: `/api/v3/walletStates?${config.watchlist
    .slice(0, 1024)
    .map((w) => `address=${encodeURIComponent(w.raw)}`)
    .join('&')}`,
  metrics: '/metrics',
};

let server;
if (mode === 'tonwatch') {
  server = createHttpServer({ routes, logger, onServed: (e, c) => self.servedRequest(e, c) });
} else {
  // The same bytes, precomputed once, served by a bare node:http handler.
  const answers = new Map();
  for (const [name, path] of Object.entries(paths)) {
    const q = path.indexOf('?');
    const route = routes.get(q === -1 ? path : path.slice(0, q));
    const response = await route.handle({ method: 'GET', path, query: q === -1 ? '' : path.slice(q + 1) });
    const body = Array.isArray(response.body) ? Buffer.concat(response.body) : Buffer.from(response.body);
    answers.set(path, { status: response.status, headers: response.headers, body });
    void name;
  }
  server = createServer({ maxHeaderSize: 128 * 1024 }, (req, res) => {
    const answer = answers.get(req.url);
    if (!answer) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(answer.status, { ...answer.headers, 'content-length': String(answer.body.length) });
    res.end(answer.body);
  });
}
const address = await listen(server, '127.0.0.1', 0);
process.stdout.write(`${JSON.stringify({ port: address.port, paths, rss: process.memoryUsage().rss })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
