// Wallet cycles of the real daemon against the real simulator process: how long a cycle
// takes against the upstream budget, and how many calls it takes behind a URL limit.
import { Pool } from 'undici';
import { cpuSecondsOf, simulatorSetup, spawnTonwatch } from './support.mjs';

/** One sample of a metric from the text format; 0 when absent. */
function sample(text, name, labels) {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.every((pair) => l.includes(pair)));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/**
 * The product's reason for the processing target, end to end: the real daemon against the
 * simulator (100,000 accounts, R rps, 1000 addresses per request, answers shuffled),
 * scraped once after every cycle as Prometheus would. A cycle must take at most
 * 1.05 × batches / R seconds, with no 429. Also reports the daemon's whole CPU per wallet
 * state over the measured cycles (HTTP client, queue polls and scrapes included).
 */
export async function cycleAgainstSimulator(wallets, rps, cycles = 2) {
  const { sim, port, config } = await simulatorSetup(wallets, ['--rps', String(rps), '--max-url-bytes', '1000000', '--block-ms', '2000'], {
    rps,
    schedule: '{ queueSizes: "*/5 * * * * *", wallets: "*/15 * * * * *" }',
  });
  // Cycle ends come from the daemon's own debug line; /metrics is read once per cycle.
  const daemon = await spawnTonwatch(['--config', config]);
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: 1 });
  const scrape = async () => (await pool.request({ path: '/metrics', method: 'GET' })).body.text();
  const result = await new Promise((resolve, reject) => {
    const durations = [];
    let first = NaN;
    let firstCalls = NaN;
    let cpuFrom = NaN;
    let pending = '';
    let queue = Promise.resolve();
    const timer = setTimeout(() => reject(new Error('wallet cycles did not finish in time')), (cycles + 2) * 15_000 + 60_000);
    daemon.stdout.on('data', (chunk) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.includes('"wallet cycle done"')) continue;
        const { seconds, batches } = JSON.parse(line);
        queue = queue.then(async () => {
          const text = await scrape();
          if (Number.isNaN(cpuFrom)) {
            // The first cycle starts from nothing (no snapshot, nothing compiled or
            // rendered yet): its duration is reported on its own, and the CPU of the
            // cycles after it.
            first = seconds;
            firstCalls = batches;
            cpuFrom = cpuSecondsOf(daemon.pid);
            return;
          }
          durations.push(seconds);
          if (durations.length === cycles) {
            clearTimeout(timer);
            resolve({
              first,
              firstCalls,
              durations,
              cpu: cpuSecondsOf(daemon.pid) - cpuFrom,
              tooMany: sample(text, 'tonwatch_upstream_requests_total', ['code="429"']),
            });
          }
        }, reject);
      }
    });
  }).finally(async () => {
    await pool.close();
    daemon.kill('SIGTERM');
    sim.kill('SIGTERM');
  });
  const batches = Math.ceil(wallets / 1000);
  return { wallets, rps, ...result, bound: (1.05 * batches) / rps, statesPerCpuSecond: (wallets * cycles) / result.cpu };
}

/**
 * Upstream calls per wallet cycle behind a proxy's 8 KiB request-line limit: the real
 * daemon (walletBatchSize 1000) against the simulator answering 414 past 8,192 bytes of
 * URL, two cycles over `wallets` wallets. The first cycle includes the search for the
 * largest batch that fits; the second runs at the size it remembered. Each cycle's calls
 * come from its own "wallet cycle done" line (a scrape after the first cycle could already
 * count the second's, which may start right after it); the upstream request counter, read
 * once both are done, must agree with their sum.
 */
export async function callsBehindUrlLimit(wallets) {
  const { sim, port, config } = await simulatorSetup(wallets, ['--max-url-bytes', '8192', '--block-ms', '0'], {
    rps: 1000,
    schedule: '{ queueSizes: "0 0 * * * *", wallets: "*/20 * * * * *" }',
  });
  const daemon = await spawnTonwatch(['--config', config]);
  try {
    const perCycle = [];
    let pending = '';
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('wallet cycles did not finish in time')), 120_000);
      daemon.stdout.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) {
          if (!line.includes('"wallet cycle done"') || perCycle.length === 2) continue;
          const { batches, refusedBatches } = JSON.parse(line);
          perCycle.push({ accepted: batches, refused: refusedBatches });
          if (perCycle.length === 2) {
            clearTimeout(timer);
            resolve();
          }
        }
      });
    });
    // The next cycle is a tick (20 s) away: the counter holds these two cycles' calls alone.
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const counted = {
      accepted: sample(text, 'tonwatch_upstream_requests_total', ['query="wallets"', 'code="200"']),
      refused: sample(text, 'tonwatch_upstream_requests_total', ['query="wallets"', 'code="414"']),
    };
    const logged = { accepted: perCycle[0].accepted + perCycle[1].accepted, refused: perCycle[0].refused + perCycle[1].refused };
    if (counted.accepted !== logged.accepted || counted.refused !== logged.refused) {
      throw new Error(`the cycles logged ${JSON.stringify(logged)} calls, tonwatch_upstream_requests_total counted ${JSON.stringify(counted)}`);
    }
    return { wallets, first: perCycle[0], second: perCycle[1] };
  } finally {
    daemon.kill('SIGTERM');
    sim.kill('SIGTERM');
  }
}
