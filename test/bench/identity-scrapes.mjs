// Whether identity (uncompressed) scrapes of /metrics hold the event loop: the real tonwatch
// process on a persisted snapshot, wrk scraping /metrics without gzip back to back on one
// connection (each body decompressed from the kept gzip members), while this process asks
// v2 one request at a time and times each answer; and the same prober with no scrapes.
import { request } from 'undici';
import { exited, freePort, getWhenUp, persistedDataDir, spawnTonwatch, untilReady, wrk } from './support.mjs';

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** v2 asked one request at a time for `seconds`; resolves with the latencies (ms), sorted. */
async function probeV2(url, seconds) {
  const latencies = [];
  const until = performance.now() + seconds * 1000;
  while (performance.now() < until) {
    const started = performance.now();
    const answer = await request(url);
    await answer.body.arrayBuffer();
    if (answer.statusCode !== 200) throw new Error(`v2 answered ${answer.statusCode}`);
    latencies.push(performance.now() - started);
    // A pause between requests, so the prober samples the server, not its own queue.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return latencies.sort((a, b) => a - b);
}

const summary = (latencies) => ({ n: latencies.length, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), max: latencies[latencies.length - 1] });

/** v2's latency with and without back-to-back identity scrapes at `wallets` wallets. */
export async function v2DuringIdentityScrapes(wallets, seconds = 10) {
  const port = await freePort();
  const data = await persistedDataDir(wallets, port);
  const daemon = await spawnTonwatch(['--config', data.config]);
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base);
    // Start-up work (a full collection once the wallets file is in) out of the way; one scrape of each kind renders the series.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const identity = await getWhenUp(`${base}/metrics`, {}, 60_000);
    await getWhenUp(`${base}/metrics`, { 'accept-encoding': 'gzip' }, 60_000);
    const quiet = summary(await probeV2(`${base}/api/v2/getOutMsgQueueSizes`, seconds));
    const [scrapes, probed] = await Promise.all([
      wrk(`${base}/metrics`, { serverPid: daemon.pid, connections: 1, seconds: seconds + 1 }),
      new Promise((resolve) => setTimeout(resolve, 500)).then(() => probeV2(`${base}/api/v2/getOutMsgQueueSizes`, seconds)),
    ]);
    return { wallets, bodyBytes: identity.body.length, scrapesPerSecond: scrapes.rps, serverCpuShare: scrapes.serverCpuShare, quiet, during: summary(probed) };
  } finally {
    daemon.kill('SIGKILL');
    await exited(daemon);
  }
}
