import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardExpressions, loadRules, SINGLE_PROCESS_NOTE, substituteVariables, type DashboardExpression } from '../helpers/promql.js';
import { eventually, findTool, freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';
import { makeTestCertificates, testHash } from '../helpers/certs.js';
// @ts-expect-error: plain-JS generator without type declarations
import { LITESERVER_NOTE, NO_ELECTION_NOTE } from '../../dashboards/chain.mjs';

/**
 * A real Prometheus scraping a real tonwatch on the real simulator, all on 127.0.0.1, the
 * way an operator exposes it: over TLS with a client certificate and basic auth
 * (certificates made at test time):
 * every expression of the dashboards and rules must parse and return data, and a surge
 * must take the queue-pressure alert to `firing`. Alert `for:` durations are shortened
 * to 5 s in Prometheus' copy of the rules (promtool test rules covers the real ones).
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CALM_NOTE = 'Empty on a calm network';
const SCRAPE_PASSWORD = 'scrape-secret';

describe('dashboards and rules against a real Prometheus', () => {
  const prometheusBin = findTool('prometheus');
  let sim: RunningProcess;
  let simUrl: string;
  let daemon: RunningProcess;
  let prometheus: ChildProcess | undefined;
  let promUrl: string;
  let promLog = '';
  const dashboardExprs: DashboardExpression[] = [];

  const query = async (expr: string): Promise<{ ok: boolean; series: number; error?: string }> => {
    const response = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
    return body.status === 'success' ? { ok: true, series: body.data?.result.length ?? 0 } : { ok: false, series: 0, error: body.error ?? '' };
  };

  beforeAll(async () => {
    if (!prometheusBin) return;
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-prom-'));
    const certs = makeTestCertificates();
    await writeFile(
      join(certs.dir, 'web.yml'),
      [
        'tls_server_config:',
        '  cert_file: server.crt',
        '  key_file: server.key',
        '  client_auth_type: RequireAndVerifyClientCert',
        '  client_ca_file: ca.crt',
        'basic_auth_users:',
        `  prometheus: "${testHash(SCRAPE_PASSWORD)}"`,
      ].join('\n'),
    );
    // Stall from the start: calm queues, but one shard's seqno never moves.
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '250', '--seed', '7', '--scenario', 'stall']);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    // The compose stack's demo config, pointed at this simulator.
    const demo = (await readFile(join(ROOT, 'dashboards/tonwatch/demo.yml'), 'utf8'))
      .replace('http://simulator:10385', simUrl)
      .replace(/^listen: .*$/m, `listen: { host: 127.0.0.1, port: 0, webConfigFile: ${join(certs.dir, 'web.yml')} }`)
      .replace('/var/lib/tonwatch/demo-snapshot.json', join(dir, 'snapshot.json'))
      .replace('queueSizes: "*/2 * * * * *"', 'queueSizes: "* * * * * *"')
      .replace('wallets: "*/10 * * * * *"', 'wallets: "*/2 * * * * *"')
      // The lag check every second, so an indexer held back shows within the test.
      .concat('\nlagCheck: { everySeconds: 1, maxLagBlocks: 10 }\n');
    await writeFile(join(dir, 'tonwatch.yml'), demo);
    daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')]);
    const tonwatchUrl = (await daemon.waitFor(/"url":"(https:\/\/127\.0\.0\.1:\d+)"/))[1] ?? '';

    const rules = (await readFile(join(ROOT, 'dashboards/prometheus/rules.yml'), 'utf8')).replace(/^(\s+)for: \S+$/gm, '$1for: 5s');
    await writeFile(join(dir, 'rules.yml'), rules);
    await writeFile(
      join(dir, 'prometheus.yml'),
      `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${join(dir, 'rules.yml')}]
scrape_configs:
  - job_name: tonwatch
    scheme: https
    tls_config: { ca_file: ${certs.caFile}, cert_file: ${certs.clientCertFile}, key_file: ${certs.clientKeyFile} }
    basic_auth: { username: prometheus, password: ${SCRAPE_PASSWORD} }
    static_configs: [ { targets: ["${new URL(tonwatchUrl).host}"] } ]
`,
    );
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      prometheusBin,
      [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stderr?.on('data', (c: Buffer) => (promLog += c.toString()));
    await eventually(
      async () => ((await query('up{job="tonwatch"} == 1')).series === 1 ? true : undefined),
      30_000,
      `Prometheus scraping tonwatch; log:\n${promLog.slice(-2000)}`,
    );
    // Rates and derivatives need a few samples.
    await eventually(
      async () => ((await query('ton:shard_block_seqno:deriv5m')).series > 0 && (await query('ton_wallet_balance_tons')).series > 0 ? true : undefined),
      30_000,
      'first data',
    );

    for (const file of ['queue-pressure.json', 'wallets.json', 'health.json', 'chain.json']) {
      const json = JSON.parse(await readFile(join(ROOT, 'dashboards/grafana/dashboards', file), 'utf8')) as never;
      dashboardExprs.push(...dashboardExpressions(file, json));
    }
  }, 120_000);

  afterAll(async () => {
    prometheus?.kill('SIGTERM');
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  /** Evaluates expressions repeatedly for `ms`; returns those that returned data at least once. */
  const withData = async (exprs: readonly string[], ms: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    const until = Date.now() + ms;
    do {
      for (const expr of exprs) if (!seen.has(expr) && (await query(expr)).series > 0) seen.add(expr);
      if (seen.size === exprs.length) break;
      await new Promise((r) => setTimeout(r, 1000));
    } while (Date.now() < until);
    return seen;
  };

  it('scrapes tonwatch over TLS, with a client certificate and basic auth, and no scrape was refused', async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    const targets = (await (await fetch(`${promUrl}/api/v1/targets`)).json()) as {
      data: { activeTargets: { scrapeUrl: string; health: string; lastError: string }[] };
    };
    const tonwatch = targets.data.activeTargets.find((t) => t.scrapeUrl.endsWith('/metrics'));
    expect(tonwatch?.scrapeUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(tonwatch?.health).toBe('up');
    expect(tonwatch?.lastError).toBe('');
    expect((await query('up{job="tonwatch"} == 1')).series).toBe(1);
    expect((await query('tonwatch_served_requests_total{endpoint="metrics",code="401"}')).series).toBe(0);
  });

  it("reads tonwatch's gzip body: every scrape Prometheus made was answered in gzip, and none in identity", async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    // Prometheus always sends Accept-Encoding: gzip; tonwatch reports the size of the last body it sent per encoding.
    expect((await query('tonwatch_metrics_response_size_bytes{encoding="gzip"} > 0')).series).toBe(1);
    expect((await query('tonwatch_metrics_response_size_bytes{encoding="identity"}')).series).toBe(0);
    // … and what it read from those bodies is whole: every wallet of the demo config has its status series.
    expect((await query('count(ton_wallet_status) == scalar(tonwatch_watchlist_size)')).series).toBe(1);
  });

  it('parses and returns data for every dashboard expression and rule, in the scenario each is meant for', async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    const rules = loadRules().groups.flatMap((g) => g.rules);
    const panelExprs = dashboardExprs.map((d) => ({ ...d, expr: substituteVariables(d.expr, '30s') }));
    // Everything must parse.
    for (const expr of [...panelExprs.map((p) => p.expr), ...rules.map((r) => r.expr)]) {
      const result = await query(expr);
      expect(result.error, expr).toBeUndefined();
      expect(result.ok, expr).toBe(true);
    }
    // The demo's upstream is toncenter-like (no block creation counters), and an election is open only part of each round.
    const calmPanels = panelExprs.filter(
      (p) => ![CALM_NOTE, SINGLE_PROCESS_NOTE, LITESERVER_NOTE, NO_ELECTION_NOTE].some((note) => p.description.includes(note)),
    );
    const calmAlerts = ['TonWalletBalanceBelowMinimum', 'TonJettonBalanceBelowMinimum', 'TonWalletNotActive'];
    const alertExpr = (name: string) => rules.find((r) => r.alert === name)?.expr ?? '';
    const calmExprs = [...calmPanels.map((p) => p.expr), ...calmAlerts.map(alertExpr)];
    const calm = await withData(calmExprs, 20_000);
    expect(
      calmExprs.filter((e) => !calm.has(e)),
      `empty on a calm network: ${calmExprs.filter((e) => !calm.has(e)).join(' ;; ')}`,
    ).toEqual([]);

    // Upstream failures: 429s in both body forms and a few 503s, spread over several
    // scrapes (a burst inside one scrape interval shows no increase to rate()).
    for (const kind of ['rate_limited', 'rate_limited_result', 'http_503', 'rate_limited', 'rate_limited_result', 'http_503']) {
      await fetch(`${simUrl}/_sim/inject?kind=${kind}&count=1`);
      await new Promise((r) => setTimeout(r, 1500));
    }
    const failureExprs = [
      ...panelExprs.filter((p) => p.panel === 'Upstream 429s').map((p) => p.expr),
      alertExpr('TonwatchUpstreamRateLimited'),
      'tonwatch:upstream_errors:ratio5m',
    ];
    // The rate-limit alert wants > 0.05 429s per second over 5 minutes (15 of them):
    // keep the upstream answering 429 once per scrape until it shows, for 40 s at most.
    const failures = new Set<string>();
    for (let i = 0; i < 40 && failures.size < failureExprs.length; i += 1) {
      await fetch(`${simUrl}/_sim/inject?kind=${i % 2 ? 'rate_limited' : 'rate_limited_result'}&count=1`);
      for (const expr of await withData(failureExprs, 0)) failures.add(expr);
      await new Promise((r) => setTimeout(r, 1000));
    }
    expect(
      failureExprs.filter((e) => !failures.has(e)),
      'empty after injected failures',
    ).toEqual([]);

    // An indexer held 20 blocks behind its own tip (limit 10).
    await fetch(`${simUrl}/_sim/lag?blocks=0&indexer=20`);
    const lagExprs = [alertExpr('TonwatchIndexerLagging')];
    const lagging = await withData(lagExprs, 20_000);
    await fetch(`${simUrl}/_sim/lag?blocks=0&indexer=0`);
    expect(
      lagExprs.filter((e) => !lagging.has(e)),
      'empty with a lagging indexer',
    ).toEqual([]);

    // Surge: one shard climbs past the limit.
    await fetch(`${simUrl}/_sim/scenario?name=surge`);
    const surgeExprs = [
      ...panelExprs.filter((p) => p.description.includes(CALM_NOTE) && p.panel !== 'Upstream 429s').map((p) => p.expr),
      alertExpr('TonQueuePressureHigh'),
      alertExpr('TonQueuePressureCritical'),
      alertExpr('TonQueuePredictedToReachLimit'),
    ];
    const surge = await withData(surgeExprs, 45_000);
    expect(
      surgeExprs.filter((e) => !surge.has(e)),
      'empty under surge',
    ).toEqual([]);

    // Every recording rule has produced data by now.
    // Validator efficiency needs a liteserver's block counts (the demo's upstream is toncenter-like): promtool's tests cover it.
    const recorded = rules.filter((r) => r.record && r.record !== 'ton:validator_efficiency:ratio1h').map((r) => r.record ?? '');
    const recordedSeen = await withData(recorded, 5_000);
    expect(recorded.filter((r) => !recordedSeen.has(r))).toEqual([]);
  }, 150_000);

  it('takes the queue-pressure alert to firing under surge', async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    await fetch(`${simUrl}/_sim/scenario?name=surge`);
    const firing = await eventually(
      async () => {
        const body = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } };
        return body.data.alerts.find((a) => a.labels['alertname'] === 'TonQueuePressureCritical' && a.state === 'firing');
      },
      60_000,
      'TonQueuePressureCritical firing',
    );
    expect(firing.labels).toMatchObject({ severity: 'critical', job: 'tonwatch', workchain: '0' });
  }, 90_000);

  it("takes the jetton alert to firing when a watched wallet's USDT balance drops under its minJettonBalance", async (ctx) => {
    if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
    // demo-v4r2-10 has minJettonBalance { USDT: 10 } and holds far more in the simulator.
    const owner = '0:B936BBB451D0CB226431860000FAE592DF3CB16B7CCB78700720BCEC074E77B2';
    const state = (await (await fetch(`${simUrl}/_sim/jettons`)).json()) as { jettons: { symbol: string; master: string }[] };
    const master = state.jettons.find((j) => j.symbol === 'SIMUSD')?.master ?? '';
    const alerts = async () =>
      ((await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } }).data.alerts;
    const forOwner = async () => (await alerts()).find((a) => a.labels['alertname'] === 'TonJettonBalanceBelowMinimum' && a.labels['name'] === 'demo-v4r2-10');
    expect(await forOwner()).toBeUndefined();
    // Set to 3.5 USDT (base units, 6 decimals) and held there while the rule's `for` runs.
    const hold = setInterval(() => void fetch(`${simUrl}/_sim/jettons?owner=${owner}&master=${master}&balance=3500000`), 200);
    try {
      const firing = await eventually(
        async () => {
          const alert = await forOwner();
          return alert?.state === 'firing' ? alert : undefined;
        },
        60_000,
        'TonJettonBalanceBelowMinimum firing for demo-v4r2-10',
      );
      expect(firing.labels).toMatchObject({ severity: 'critical', job: 'tonwatch', jetton: 'USDT', address: owner, team: 'payments' });
      expect((await query(`ton_jetton_balance{name="demo-v4r2-10",jetton="USDT"} == 3.5`)).series).toBe(1);
    } finally {
      clearInterval(hold);
    }
  }, 90_000);
});
