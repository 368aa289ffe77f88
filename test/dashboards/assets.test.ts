import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { FEATURES } from '../../src/features/index.js';
import { dashboardExpressions, loadRules, metricNamesIn, RULES_PATH } from '../helpers/promql.js';
import { findTool, MAIN } from '../helpers/process.js';
// @ts-expect-error: plain-JS generator without type declarations
import { dashboardFiles, generatedFiles } from '../../dashboards/generate.mjs';
// @ts-expect-error: plain-JS generator without type declarations
import { DEFAULT_RUNBOOK_BASE_URL } from '../../dashboards/rules.mjs';
import { configFrom } from '../helpers/config.js';
import { featureHarness } from '../helpers/features.js';
import { PRESSURE_CRITICAL, PRESSURE_WARNING } from '../../src/features/queue-sizes/status.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DASHBOARD_DIR = join(ROOT, 'dashboards/grafana/dashboards');
const files = readdirSync(DASHBOARD_DIR).filter((f) => f.endsWith('.json'));
const dashboards = files.map((f) => ({ file: f, json: JSON.parse(readFileSync(join(DASHBOARD_DIR, f), 'utf8')) as unknown }));

/** The parts of Grafana's dashboard model we rely on (schema 36+, no hard-coded datasource uids). */
const datasourceRef = z.object({ type: z.literal('prometheus'), uid: z.literal('${datasource}') });
const panelSchema = z.object({
  id: z.number().int(),
  type: z.enum(['timeseries', 'stat', 'table', 'state-timeline', 'gauge', 'bargauge']),
  title: z.string().min(3),
  description: z.string().min(10),
  datasource: datasourceRef,
  gridPos: z.object({ x: z.number().int().min(0).max(23), y: z.number().int().min(0), w: z.number().int().min(1).max(24), h: z.number().int().min(1) }),
  targets: z.array(z.object({ refId: z.string(), expr: z.string().min(1), datasource: datasourceRef })).min(1),
});
/** A row: a heading, no query of its own. */
const rowSchema = z.object({
  id: z.number().int(),
  type: z.literal('row'),
  title: z.string().min(3),
  gridPos: panelSchema.shape.gridPos,
  panels: z.array(z.unknown()),
});
const variableSchema = z.object({ name: z.string(), type: z.string() }).loose();
const dashboardSchema = z.object({
  uid: z.string().regex(/^[a-z0-9-]{1,40}$/),
  title: z.string().min(3),
  schemaVersion: z.number().int().min(36),
  tags: z.array(z.string()),
  time: z.object({ from: z.string(), to: z.string() }),
  templating: z.object({ list: z.array(variableSchema) }),
  panels: z.array(z.union([panelSchema, rowSchema])).min(3),
});

/** Every name /metrics can carry: the features' chain families, and the self metrics of the core and of every feature. */
async function exportedMetricNames(): Promise<Set<string>> {
  const { self } = featureHarness({ config: await configFrom('{}') });
  const names = new Set<string>(FEATURES.flatMap((feature) => feature.families ?? []).map((family) => family.name));
  for (const metric of self.registry.getMetricsAsArray()) {
    names.add(metric.name);
    for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  names.add('up'); // Prometheus' own per-target series
  return names;
}

describe('Grafana dashboards', () => {
  it("are the generator's output (edit dashboards/generate.mjs, then npm run dashboards)", () => {
    const generated = dashboardFiles() as Record<string, string>;
    expect(Object.keys(generated).sort()).toEqual([...files].sort());
    for (const file of files) expect(readFileSync(join(DASHBOARD_DIR, file), 'utf8'), file).toBe(generated[file]);
  });

  it.each(dashboards)('$file matches the dashboard schema, with datasource, job and instance variables', ({ json }) => {
    const dashboard = dashboardSchema.parse(json);
    const variables = dashboard.templating.list;
    expect(variables.find((v) => v.name === 'datasource')?.type).toBe('datasource');
    expect(variables.map((v) => v.name)).toEqual(expect.arrayContaining(['job', 'instance']));
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    // No hard-coded datasource uid anywhere.
    expect(JSON.stringify(json)).not.toMatch(/"uid":\s*"(?!\$\{datasource\}|-- Grafana --)[^"]*"\s*,?\s*"?type"?:?\s*"?prometheus/);
  });

  it('use only metric names tonwatch exports, or recording rules defined in rules.yml', async () => {
    const exported = await exportedMetricNames();
    const recorded = new Set(loadRules().groups.flatMap((g) => g.rules.flatMap((r) => (r.record ? [r.record] : []))));
    for (const { file, json } of dashboards) {
      for (const { panel, expr } of dashboardExpressions(file, json as never)) {
        for (const name of metricNamesIn(expr)) {
          expect(exported.has(name) || recorded.has(name), `${file} / ${panel}: ${name}`).toBe(true);
        }
      }
    }
  });
});

describe('Prometheus rules', () => {
  it("rules.yml and the Kubernetes PrometheusRule are the generator's output (edit dashboards/rules.mjs, then npm run dashboards)", () => {
    const generated = generatedFiles() as Record<string, string>;
    for (const path of ['dashboards/prometheus/rules.yml', 'deploy/kubernetes/base/prometheusrule.yaml']) {
      expect(readFileSync(join(ROOT, path), 'utf8'), path).toBe(generated[path]);
    }
    const operator = parseYaml(readFileSync(join(ROOT, 'deploy/kubernetes/base/prometheusrule.yaml'), 'utf8')) as { spec: unknown };
    expect(operator.spec).toEqual(loadRules());
  });

  it("colour the status page's bars at the pressure alerts' thresholds", () => {
    const rules = loadRules().groups.flatMap((g) => g.rules);
    expect(rules.find((r) => r.alert === 'TonQueuePressureHigh')?.expr).toMatch(new RegExp(`> ${PRESSURE_WARNING}$`));
    expect(rules.find((r) => r.alert === 'TonQueuePressureCritical')?.expr).toMatch(new RegExp(`> ${PRESSURE_CRITICAL}$`));
  });

  it('select every series with the job selector, and summaries are fixed text (stable within an Alertmanager group)', () => {
    const rules = loadRules().groups.flatMap((g) => g.rules);
    for (const rule of rules) {
      // Every metric name in an expression is followed by a selector that starts with the job matcher.
      for (const name of metricNamesIn(rule.expr)) {
        const uses = [...rule.expr.matchAll(new RegExp(`(?<![\\w:])${name.replaceAll(':', '\\:')}(\\{[^}]*\\}|\\b)`, 'g'))];
        for (const use of uses) expect(use[1], `${rule.alert ?? rule.record}: ${name}`).toMatch(/^\{job="tonwatch"/);
      }
      if (rule.alert) expect(rule.annotations?.['summary'], rule.alert).not.toMatch(/\{\{|\$/);
    }
  });

  it('give every alert a severity and summary/description/runbook_url annotations, and use exported names only', async () => {
    const exported = await exportedMetricNames();
    const rules = loadRules().groups.flatMap((g) => g.rules);
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    const alerts = rules.filter((r) => r.alert);
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'TonQueuePressureHigh',
        'TonQueuePressureCritical',
        'TonQueuePredictedToReachLimit',
        'TonMasterchainStalled',
        'TonShardStalled',
        'TonValidatorNotInNextSet',
        'TonValidatorMissingElection',
        'TonValidatorComplaint',
        'TonValidatorLowEfficiency',
        'TonwatchDataStale',
        'TonwatchDown',
        'TonwatchTargetMissing',
        'TonwatchUpstreamRateLimited',
        'TonwatchUpstreamFailing',
        'TonwatchUpstreamLagging',
        'TonwatchIndexerLagging',
        'TonWalletBalanceBelowMinimum',
        'TonJettonBalanceBelowMinimum',
        'TonWalletNotActive',
      ]),
    );
    for (const alert of alerts) {
      expect(['warning', 'critical']).toContain(alert.labels?.['severity']);
      expect(Object.keys(alert.annotations ?? {}).sort()).toEqual(['description', 'runbook_url', 'summary']);
      expect(alert.annotations?.['runbook_url']).toBe(`${DEFAULT_RUNBOOK_BASE_URL as string}#${alert.alert?.toLowerCase()}`);
      // The runbook anchor exists.
      expect(readFileSync(join(ROOT, 'docs/runbook.md'), 'utf8').split('\n')).toContain(`## ${alert.alert ?? ''}`);
    }
    for (const rule of rules)
      for (const name of metricNamesIn(rule.expr)) expect(exported.has(name) || recorded.has(name), `${rule.alert ?? rule.record}: ${name}`).toBe(true);
  });

  it('pass promtool check rules and promtool test rules', (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    const check = spawnSync(promtool, ['check', 'rules', fileURLToPath(RULES_PATH)], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toMatch(/SUCCESS: 30 rules found/);
    expect(check.status).toBe(0);
    const test = spawnSync(promtool, ['test', 'rules', 'rules.test.yml'], { cwd: join(ROOT, 'dashboards/prometheus'), encoding: 'utf8' });
    expect(test.stdout + test.stderr).toMatch(/SUCCESS/);
    expect(test.status).toBe(0);
  });

  it('generated for another job and runbook base, pass the same promtool tests with those substituted', (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    const out = mkdtempSync(join(tmpdir(), 'tonwatch-rules-'));
    const generate = spawnSync(
      process.execPath,
      [join(ROOT, 'dashboards/generate.mjs'), '--job-selector', 'job="ton-exporter"', '--runbook-base-url', 'https://wiki.example.com/tonwatch', '--out', out],
      { encoding: 'utf8' },
    );
    expect(generate.status, generate.stderr).toBe(0);
    const rules = readFileSync(join(out, 'dashboards/prometheus/rules.yml'), 'utf8');
    expect(rules).not.toContain('job="tonwatch"');
    expect(rules).toContain('runbook_url: https://wiki.example.com/tonwatch#tonwatchdown');
    const tests = readFileSync(join(ROOT, 'dashboards/prometheus/rules.test.yml'), 'utf8')
      .replaceAll('job="tonwatch"', 'job="ton-exporter"')
      .replaceAll('job: tonwatch', 'job: ton-exporter')
      .replaceAll("{job='tonwatch'}", "{job='ton-exporter'}")
      .replaceAll(DEFAULT_RUNBOOK_BASE_URL as string, 'https://wiki.example.com/tonwatch');
    writeFileSync(join(out, 'dashboards/prometheus/rules.test.yml'), tests);
    const test = spawnSync(promtool, ['test', 'rules', 'rules.test.yml'], { cwd: join(out, 'dashboards/prometheus'), encoding: 'utf8' });
    expect(test.stdout + test.stderr).toMatch(/SUCCESS/);
    expect(test.status).toBe(0);
    const dashboard = readFileSync(join(out, 'dashboards/grafana/dashboards/health.json'), 'utf8');
    expect(dashboard).toContain('label_values(tonwatch_build_info{job=\\"ton-exporter\\"}, job)');
  });

  it('has a scrape config promtool accepts', (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    // The config names the rules file by its path inside the container; point it at ours.
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-promcfg-'));
    const config = readFileSync(join(ROOT, 'dashboards/prometheus/prometheus.yml'), 'utf8')
      .replace('/etc/prometheus/rules.yml', fileURLToPath(RULES_PATH))
      .replace('/etc/prometheus/tonwatch-scrape-password', join(ROOT, 'dashboards/prometheus/tonwatch-scrape-password'));
    writeFileSync(join(dir, 'prometheus.yml'), config);
    const check = spawnSync(promtool, ['check', 'config', join(dir, 'prometheus.yml')], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toMatch(/SUCCESS/);
    expect(check.status).toBe(0);
  });
});

describe('the docker-compose stack', () => {
  it('has a valid Alertmanager config', (ctx) => {
    const amtool = findTool('amtool');
    if (!amtool) return ctx.skip("amtool not installed (CI installs Debian's prometheus-alertmanager package)");
    const check = spawnSync(amtool, ['check-config', join(ROOT, 'dashboards/alertmanager/alertmanager.yml')], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toMatch(/SUCCESS/);
    expect(check.status).toBe(0);
  });

  it.for([{}, { TONWATCH_CONFIG_NAME: 'demo' }, { TONWATCH_CONFIG_NAME: 'cluster-demo' }])(
    'docker-compose config accepts the file (%o)',
    (env: Record<string, string>, ctx) => {
      const compose = findTool('docker-compose');
      if (!compose) return ctx.skip("docker-compose not installed (CI installs Debian's docker-compose package)");
      const check = spawnSync(compose, ['-f', join(ROOT, 'docker-compose.yml'), '--profile', 'demo', '--profile', 'cluster', 'config', '-q'], {
        encoding: 'utf8',
        env: { ...process.env, ...env },
      });
      expect(check.stderr).toBe('');
      expect(check.status).toBe(0);
    },
  );

  it.each(['tonwatch.yml', 'demo.yml', 'cluster.yml', 'cluster-demo.yml'])('mounts a tonwatch config (%s) that tonwatch check-config accepts', (file) => {
    const result = spawnSync(process.execPath, [MAIN, 'check-config', '--config', join(ROOT, 'dashboards/tonwatch', file)], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });

  it("checks the container's health with `tonwatch healthcheck` on the config the daemon runs, and scrapes with the web config's user", async () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/HEALTHCHECK [^\n]*\\\n\s+CMD \["node", "dist\/main\.js", "healthcheck"\]/);
    expect(dockerfile).toContain('ENV TONWATCH_CONFIG=/etc/tonwatch/tonwatch.yml');
    const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { command?: unknown; environment?: Record<string, string> }>;
    };
    // No --config on the command line: the healthcheck could not see it.
    expect(compose.services['tonwatch']?.command).toBeUndefined();
    expect(compose.services['tonwatch']?.environment?.['TONWATCH_CONFIG']).toBe('/etc/tonwatch/${TONWATCH_CONFIG_NAME:-tonwatch}.yml');
    // Prometheus' password matches the hash in tonwatch's web config.
    const bcrypt = await import('bcryptjs');
    const web = parseYaml(readFileSync(join(ROOT, 'dashboards/tonwatch/web.yml'), 'utf8')) as { basic_auth_users: Record<string, string> };
    const prometheus = parseYaml(readFileSync(join(ROOT, 'dashboards/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; basic_auth?: { username: string } }[];
    };
    const user = prometheus.scrape_configs.find((c) => c.job_name === 'tonwatch')?.basic_auth?.username ?? '';
    const password = readFileSync(join(ROOT, 'dashboards/prometheus/tonwatch-scrape-password'), 'utf8');
    expect(await bcrypt.compare(password, web.basic_auth_users[user] ?? '')).toBe(true);
  });

  it('watches simulated accounts in the demo config (simulator seed 7)', async () => {
    const { createSimWalletsFor } = await import('../../src/sim/simulator.js');
    const { parseAddress } = await import('../../src/ton/address.js');
    const sim = createSimWalletsFor({ seed: 7, accounts: 60, testnet: false, maxUrlBytes: 8192 });
    const known = new Set(sim.accounts().map((a) => a.raw));
    const text = readFileSync(join(ROOT, 'dashboards/tonwatch/demo.yml'), 'utf8');
    const addresses = [...text.matchAll(/address: "([^"]+)"/g)].map((m) => m[1] ?? '');
    const raws = addresses.map((a) => (parseAddress(a) as { ok: true; value: { raw: string } }).value.raw);
    expect(raws.filter((r) => known.has(r))).toHaveLength(12);
    // The cluster demo watches all of them, from its file.
    const listed = readFileSync(join(ROOT, 'dashboards/tonwatch/demo-watchlist.txt'), 'utf8').match(/^-?\d+:[0-9A-F]{64}/gm) ?? [];
    expect(new Set(listed)).toEqual(known);
  });

  it('runs the cluster profile as two replicas of the same config sharing Valkey, both scraped under the one job', () => {
    const compose = parseYaml(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as {
      services: Record<string, { profiles?: string[]; environment?: Record<string, string>; depends_on?: string[]; image?: string }>;
    };
    const { tonwatch, valkey } = compose.services;
    const second = compose.services['tonwatch-2'];
    expect(second?.profiles).toEqual(['cluster']);
    expect(valkey?.profiles).toEqual(['cluster']);
    expect(second?.environment).toEqual(tonwatch?.environment);
    expect(second?.image).toBe(tonwatch?.image);
    expect(second?.depends_on).toContain('valkey');
    const cluster = readFileSync(join(ROOT, 'dashboards/tonwatch/cluster.yml'), 'utf8');
    expect(cluster).toContain('redis: ${REDIS_URL:-redis://valkey:6379}');
    const prometheus = parseYaml(readFileSync(join(ROOT, 'dashboards/prometheus/prometheus.yml'), 'utf8')) as {
      scrape_configs: { job_name: string; dns_sd_configs?: { names: string[] }[] }[];
    };
    expect(prometheus.scrape_configs.find((c) => c.job_name === 'tonwatch')?.dns_sd_configs?.[0]?.names).toEqual(['tonwatch', 'tonwatch-2']);
  });
});
