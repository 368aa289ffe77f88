import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, findTool, freePort, startDaemonProcess, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * Chain and validator health against the simulator process, through both upstream kinds at
 * once: one simulator (its HTTP face and its liteserver), one daemon on each. The simulator's
 * validator round is 16 s: an election opens 8 s into a round and closes at 14 s, when the
 * next set appears; the round after it takes over. Then a real Prometheus on the HTTP daemon
 * takes the stall alerts to firing when the simulator stops a chain.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ROUND = 16;

interface Pool {
  readonly pool: readonly { readonly publicKey: string; readonly adnl: string }[];
}

describe('chain and validator health, toncenter and liteserver', () => {
  let sim: RunningProcess;
  let simUrl = '';
  const daemons: Record<'http' | 'liteserver', { proc: RunningProcess; url: string }> = {} as never;
  let v0 = '';
  let v1 = '';

  /** The value of the series `name{labels}` on a daemon's /metrics; undefined when absent. */
  const value = async (url: string, series: string): Promise<number | undefined> => {
    const text = await (await fetch(`${url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  /** Waits until `check` holds for the series on both daemons. */
  const onBoth = async (series: string, check: (v: number | undefined) => boolean, what: string, timeoutMs = 3 * ROUND * 1000) => {
    for (const [kind, daemon] of Object.entries(daemons)) {
      await eventually(async () => (check(await value(daemon.url, series)) ? true : undefined), timeoutMs, `${kind}: ${what} (${series})`);
    }
  };

  beforeAll(async () => {
    const litePort = await freePort();
    sim = startTonwatch(['simulate', '--port', '0', '--liteserver-port', String(litePort), '--validator-round-seconds', String(ROUND), '--block-ms', '500']);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    const publicKey = (await sim.waitFor(/public key (\S+)/))[1] ?? '';
    const { pool } = (await (await fetch(`${simUrl}/_sim/validators`)).json()) as Pool;
    v0 = pool[0]?.publicKey ?? '';
    v1 = pool[1]?.publicKey ?? '';
    const common = [
      'listen: { host: 127.0.0.1, port: 0 }',
      'schedule: { queueSizes: "* * * * * *", wallets: "0 0 * * * *", chainHeads: "* * * * * *", validators: "* * * * * *" }',
      'lagCheck: { everySeconds: 0 }',
      'validators:',
      `  - { name: v0, publicKey: "${v0}", labels: { team: ops } }`,
      `  - { name: v1, adnl: "${pool[1]?.adnl ?? ''}" }`,
    ].join('\n');
    const upstreams = {
      http: `upstreams: [{ name: sim, url: "${simUrl}", rps: 50 }]`,
      liteserver: `upstreams: [{ name: lite, kind: liteserver, rps: 50, liteservers: [{ host: 127.0.0.1, port: ${litePort}, publicKey: "${publicKey}" }] }]`,
    };
    for (const kind of ['http', 'liteserver'] as const) {
      const dir = await mkdtemp(join(tmpdir(), `tonwatch-chain-${kind}-`));
      daemons[kind] = await startDaemonProcess(dir, `${common}\n${upstreams[kind]}\nsnapshot: { file: ${join(dir, 'snapshot.json')} }\n`);
    }
    await onBoth('ton_validator_set_validators{set="current"}', (v) => v === 8, 'the current set');
  }, 60_000);

  afterAll(async () => {
    for (const daemon of Object.values(daemons)) await daemon?.proc.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  it("exports every chain's newest block, near the chain's own time", async () => {
    for (const daemon of Object.values(daemons)) {
      const masterchain = await eventually(
        () => value(daemon.url, 'ton_block_timestamp_seconds{workchain="-1",shard="8000000000000000"}'),
        10_000,
        'the masterchain',
      );
      expect(Math.abs(masterchain - Date.now() / 1000)).toBeLessThan(10);
      expect(await value(daemon.url, 'ton_block_timestamp_seconds{workchain="0",shard="4000000000000000"}')).toBeGreaterThan(Date.now() / 1000 - 10);
    }
  });

  it('sees an election open, fill and close, and its winners become the next set', async () => {
    // From a closed election (next set shown or not) to the opening of the next one.
    await onBoth('ton_election_open', (v) => v === 0, 'no election open');
    await onBoth('ton_election_open', (v) => v === 1, 'an election open');
    const first = (await value(daemons.http.url, 'ton_election_participants')) ?? 0;
    await onBoth('ton_election_participants', (v) => v !== undefined && v > first && v >= 6, 'the election filling up', ROUND * 1000);
    expect(await value(daemons.liteserver.url, 'ton_election_total_stake_tons')).toBeGreaterThan(0);
    await onBoth('ton_election_open', (v) => v === 0, 'the election closed', ROUND * 1000);
    await onBoth('ton_validator_set_validators{set="next"}', (v) => v === 8, 'the next set', ROUND * 1000);
    await onBoth('ton_validator_in_set{validator="v1",set="next"}', (v) => v === 1, 'v1 (found by its ADNL address) in the next set');
  }, 120_000);

  it('moves a watched validator out of the sets when it drops out of the elections, and back', async () => {
    expect((await fetch(`${simUrl}/_sim/validators?drop=${v0}`)).status).toBe(200);
    try {
      await onBoth('ton_validator_in_set{validator="v0",team="ops",set="next"}', (v) => v === 0, 'v0 out of the next set');
      await onBoth('ton_validator_in_set{validator="v0",team="ops",set="current"}', (v) => v === 0, 'v0 out of the current set after the rotation');
      expect(await value(daemons.http.url, 'ton_validator_in_set{validator="v0",team="ops",set="previous"}')).toBe(1);
    } finally {
      await fetch(`${simUrl}/_sim/validators?restore=${v0}`);
    }
    await onBoth('ton_validator_in_set{validator="v0",team="ops",set="current"}', (v) => v === 1, 'v0 back in the current set');
  }, 180_000);

  it('shows a complaint against a watched validator', async () => {
    expect(await value(daemons.http.url, 'ton_validator_complaints{validator="v1"}')).toBe(0);
    expect((await fetch(`${simUrl}/_sim/validators?complain=${v1}`)).status).toBe(200);
    await onBoth('ton_validator_complaints{validator="v1"}', (v) => v === 1, 'the complaint', 10_000);
  }, 30_000);

  it('gives block creation counters from the liteserver only, and the toncenter daemon says why it has none', async () => {
    await eventually(
      async () => ((await value(daemons.liteserver.url, 'ton_blocks_created_total{chain="masterchain"}')) ?? 0) > 0 || undefined,
      10_000,
      'counters',
    );
    expect(await value(daemons.liteserver.url, 'ton_validator_blocks_created_total{validator="v1",chain="shardchain"}')).toBeGreaterThanOrEqual(0);
    expect(await value(daemons.http.url, 'ton_blocks_created_total{chain="masterchain"}')).toBeUndefined();
    expect(daemons.http.proc.output()).toMatch(/no upstream gives block creation counters/);
  });

  describe('on a real Prometheus', () => {
    const prometheusBin = findTool('prometheus');
    let prometheus: ChildProcess | undefined;
    let promUrl = '';

    beforeAll(async () => {
      if (!prometheusBin) return;
      const dir = await mkdtemp(join(tmpdir(), 'tonwatch-chain-prom-'));
      const rules = (await readFile(join(ROOT, 'dashboards/prometheus/rules.yml'), 'utf8')).replace(/^(\s+)for: \S+$/gm, '$1for: 1s');
      await writeFile(join(dir, 'rules.yml'), rules);
      await writeFile(
        join(dir, 'prometheus.yml'),
        `global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [${join(dir, 'rules.yml')}]
scrape_configs:
  - job_name: tonwatch
    static_configs: [ { targets: ["${new URL(daemons.http.url).host}"] } ]
`,
      );
      const port = await freePort();
      promUrl = `http://127.0.0.1:${port}`;
      prometheus = spawn(
        prometheusBin,
        [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
        {
          stdio: 'ignore',
        },
      );
    }, 30_000);

    afterAll(() => {
      prometheus?.kill('SIGTERM');
    });

    const firing = async (name: string) => {
      const body = (await (await fetch(`${promUrl}/api/v1/alerts`)).json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } };
      return body.data.alerts.filter((a) => a.labels['alertname'] === name && a.state === 'firing');
    };

    it('fires the masterchain and shard stall alerts when the simulator stops those chains, and only for them', async (ctx) => {
      if (!prometheusBin) return ctx.skip("prometheus not installed (CI installs Debian's prometheus package)");
      await eventually(
        async () => ((await firing('TonShardStalled')).length === 0 && (await fetch(`${promUrl}/-/ready`)).ok ? true : undefined),
        30_000,
        'Prometheus',
      );
      expect((await fetch(`${simUrl}/_sim/chain?stall=masterchain`)).status).toBe(200);
      expect((await fetch(`${simUrl}/_sim/chain?stall=0:C000000000000000`)).status).toBe(200);
      try {
        const masterchain = await eventually(async () => (await firing('TonMasterchainStalled'))[0], 60_000, 'TonMasterchainStalled firing');
        expect(masterchain.labels).toMatchObject({ severity: 'critical', workchain: '-1' });
        const shards = await eventually(
          async () => {
            const found = await firing('TonShardStalled');
            return found.length > 0 ? found : undefined;
          },
          90_000,
          'TonShardStalled firing',
        );
        expect(shards.map((a) => a.labels['shard'])).toEqual(['C000000000000000']);
      } finally {
        await fetch(`${simUrl}/_sim/chain?resume=all`);
      }
    }, 180_000);
  });
});
