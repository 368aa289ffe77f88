import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CHAIN_METRICS, createSelfMetrics } from '../../src/metrics/registry.js';
import { dashboardExpressions, loadRules, metricNamesIn, RULES_PATH } from '../helpers/promql.js';
import { findTool, MAIN } from '../helpers/process.js';
// @ts-expect-error: plain-JS generator without type declarations
import { dashboardFiles } from '../../dashboards/generate.mjs';

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
const variableSchema = z.object({ name: z.string(), type: z.string() }).loose();
const dashboardSchema = z.object({
  uid: z.string().regex(/^[a-z0-9-]{1,40}$/),
  title: z.string().min(3),
  schemaVersion: z.number().int().min(36),
  tags: z.array(z.string()),
  time: z.object({ from: z.string(), to: z.string() }),
  templating: z.object({ list: z.array(variableSchema) }),
  panels: z.array(panelSchema).min(3),
});

function exportedMetricNames(): Set<string> {
  const self = createSelfMetrics({
    version: 't',
    nodeVersion: 't',
    defaultMetrics: false,
    health: { up: () => true, snapshotAgeSeconds: () => 0, lastSuccessAt: () => 0, watchlistSize: () => 0 },
  });
  const names = new Set<string>(Object.values(CHAIN_METRICS).map((m) => m.name));
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

  it('use only metric names tonwatch exports, or recording rules defined in rules.yml', () => {
    const exported = exportedMetricNames();
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
  it('give every alert a severity and summary/description/runbook annotations, and use exported names only', () => {
    const exported = exportedMetricNames();
    const rules = loadRules().groups.flatMap((g) => g.rules);
    const recorded = new Set(rules.flatMap((r) => (r.record ? [r.record] : [])));
    const alerts = rules.filter((r) => r.alert);
    expect(alerts.map((a) => a.alert)).toEqual(
      expect.arrayContaining([
        'TonQueuePressureHigh',
        'TonQueuePressureCritical',
        'TonQueuePredictedToReachLimit',
        'TonShardStalled',
        'TonwatchDataStale',
        'TonwatchDown',
        'TonwatchUpstreamRateLimited',
        'TonwatchUpstreamFailing',
        'TonWalletBalanceBelowMinimum',
        'TonWalletNotActive',
      ]),
    );
    for (const alert of alerts) {
      expect(['warning', 'critical']).toContain(alert.labels?.['severity']);
      expect(Object.keys(alert.annotations ?? {}).sort()).toEqual(['description', 'runbook', 'summary']);
      expect(alert.annotations?.['runbook']).toBe(`README.md#${alert.alert?.toLowerCase()}`);
      // The runbook anchor exists.
      expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain(`### ${alert.alert}`);
    }
    for (const rule of rules)
      for (const name of metricNamesIn(rule.expr)) expect(exported.has(name) || recorded.has(name), `${rule.alert ?? rule.record}: ${name}`).toBe(true);
  });

  it('pass promtool check rules and promtool test rules', (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    const check = spawnSync(promtool, ['check', 'rules', fileURLToPath(RULES_PATH)], { encoding: 'utf8' });
    expect(check.stdout + check.stderr).toMatch(/SUCCESS: 16 rules found/);
    expect(check.status).toBe(0);
    const test = spawnSync(promtool, ['test', 'rules', 'rules.test.yml'], { cwd: join(ROOT, 'dashboards/prometheus'), encoding: 'utf8' });
    expect(test.stdout + test.stderr).toMatch(/SUCCESS/);
    expect(test.status).toBe(0);
  });

  it('has a scrape config promtool accepts', (ctx) => {
    const promtool = findTool('promtool');
    if (!promtool) return ctx.skip("promtool not installed (CI installs Debian's prometheus package)");
    // The config names the rules file by its path inside the container; point it at ours.
    const dir = mkdtempSync(join(tmpdir(), 'tonwatch-promcfg-'));
    const config = readFileSync(join(ROOT, 'dashboards/prometheus/prometheus.yml'), 'utf8').replace('/etc/prometheus/rules.yml', fileURLToPath(RULES_PATH));
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

  it.for([{}, { TONWATCH_CONFIG_NAME: 'demo' }])('docker-compose config accepts the file (%o)', (env: Record<string, string>, ctx) => {
    const compose = findTool('docker-compose');
    if (!compose) return ctx.skip("docker-compose not installed (CI installs Debian's docker-compose package)");
    const check = spawnSync(compose, ['-f', join(ROOT, 'docker-compose.yml'), '--profile', 'demo', 'config', '-q'], {
      encoding: 'utf8',
      env: { ...process.env, ...env },
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it.each(['tonwatch.yml', 'demo.yml'])('mounts a tonwatch config (%s) that tonwatch check-config accepts', (file) => {
    const result = spawnSync(process.execPath, [MAIN, 'check-config', '--config', join(ROOT, 'dashboards/tonwatch', file)], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '' },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
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
  });
});
