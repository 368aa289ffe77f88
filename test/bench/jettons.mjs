// Jetton balances at scale: the real daemon against the simulator process, every wallet
// watching one jetton (the simulator's USD₮ look-alike), behind an 8 KiB request line.
import { exited, getWhenUp, rssOf, simulatorSetup, spawnTonwatch, wrk } from './support.mjs';
import { sameHeaders, startBare } from './http.mjs';

/** The sum of a metric's samples whose line has every one of `pairs`. */
function sum(text, name, pairs) {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) && pairs.every((pair) => l.includes(pair)))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

/**
 * gzip scrapes of the daemon's /metrics, its snapshot settled, against a bare server
 * sending the same bytes: wrk, a second of warm-up a side, then `seconds` each.
 */
async function gzipScrapes(url, pid, seconds = 5) {
  const headers = { 'accept-encoding': 'gzip' };
  const answer = await getWhenUp(`${url}/metrics`, headers);
  const bare = await startBare([{ path: '/metrics', acceptEncoding: 'gzip', headers: sameHeaders(answer.headers), body: answer.body }]);
  try {
    const sides = [
      [`${bare.url}/metrics`, bare.child.pid],
      [`${url}/metrics`, pid],
    ];
    const runs = [];
    for (const [target, serverPid] of sides) {
      await wrk(target, { serverPid, seconds: 1, headers });
      runs.push(await wrk(target, { serverPid, seconds, headers }));
    }
    return { bytes: answer.body.length, bare: runs[0], tonwatch: runs[1], ratio: runs[1].rps / runs[0].rps };
  } finally {
    bare.child.kill('SIGTERM');
  }
}

/**
 * One wallet cycle and one jetton cycle of `wallets` wallets (with `jetton`, each wallet
 * watches SIMUSD; without, TON only) at `rps`: the calls and seconds of each cycle from
 * the daemon's own metrics, the daemon's RSS once both are done and scraped, and its gzip
 * /metrics against a bare server.
 */
export async function cyclesWithJettons(wallets, { jetton, rps = 200 }) {
  const extraConfig = jetton
    ? ['jettons: { SIMUSD: { master: "EQCF5_AHV0PD3CQavKkDW1oSZnc4O5zw2JqwtWiuzJuFsrMV", decimals: 6 } }', 'watchJettons: [SIMUSD]']
    : [];
  const { sim, port, config } = await simulatorSetup(wallets, ['--max-url-bytes', '8192', '--block-ms', '0'], {
    rps,
    schedule: '{ queueSizes: "*/30 * * * * *", wallets: "0 0 * * * *" }',
    extraConfig,
  });
  const daemon = await spawnTonwatch(['--config', config]);
  daemon.stdout.resume();
  try {
    const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const deadline = Date.now() + 15 * 60_000;
    let text = '';
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      text = await scrape().catch(() => '');
      const walletsDone = sum(text, 'tonwatch_poll_duration_seconds_count', ['query="wallets"']) >= 1;
      const jettonsDone = !jetton || sum(text, 'tonwatch_poll_duration_seconds_count', ['query="jetton_wallets"']) >= 1;
      if (walletsDone && jettonsDone) break;
      if (Date.now() > deadline) throw new Error('the cycles did not finish in 15 minutes');
    }
    const cycle = (query) => ({
      calls: sum(text, 'tonwatch_upstream_requests_total', [`query="${query}"`]),
      refused: sum(text, 'tonwatch_upstream_requests_total', [`query="${query}"`, 'code="414"']),
      seconds: sum(text, 'tonwatch_poll_duration_seconds_sum', [`query="${query}"`]),
      ok: sum(text, 'tonwatch_up', [`query="${query}"`]) === 1,
    });
    const rss = rssOf(daemon.pid);
    return {
      wallets,
      rss,
      metrics: await gzipScrapes(`http://127.0.0.1:${port}`, daemon.pid),
      wallet: cycle('wallets'),
      jetton: jetton ? cycle('jetton_wallets') : null,
      series: sum(text, 'ton_jetton_info', []),
    };
  } finally {
    daemon.kill('SIGKILL');
    await exited(daemon);
    sim.kill('SIGTERM');
    await exited(sim);
  }
}
