import { describe, expect, it } from 'vitest';
import { Gauge } from 'prom-client';
import { createSelfMetrics, METRICS_ENDPOINT, OWN_METRICS_REUSE_MS, PROCESS_METRICS_EVERY_MS } from '../../src/metrics/registry.js';
import { healthStub } from '../helpers/health.js';

describe('self metrics', () => {
  it("reads tonwatch's own metrics again after any change, and Node's process metrics at most once a second", async () => {
    let clock = 1_000_000;
    const self = createSelfMetrics({
      version: 't',
      nodeVersion: 'v20',
      now: () => clock,
      health: healthStub(),
    });
    const [own1, process1] = await self.texts();
    expect(process1.toString()).toMatch(/^# HELP process_cpu_user_seconds_total/m);
    expect(own1.toString()).not.toMatch(/^process_/m);
    self.servedRequest('queue_sizes', 200);
    clock += PROCESS_METRICS_EVERY_MS - 1;
    const [own2, process2] = await self.texts();
    // The same buffer (so its gzip member is made once), while the own part is live.
    expect(process2).toBe(process1);
    expect(own2.toString()).toContain('tonwatch_served_requests_total{endpoint="queue_sizes",code="200"} 1');
    clock += 1;
    const [, process3] = await self.texts();
    expect(process3).not.toBe(process1);
    expect(process3.toString()).toMatch(/^process_resident_memory_bytes \d+/m);
  });

  it('leaves out an unlabelled gauge with nothing to read (not 0), and shows it once there is', async () => {
    let maxLag: number | undefined = undefined;
    const self = createSelfMetrics({ version: 't', nodeVersion: 'v20', defaultMetrics: false, health: healthStub() });
    self.own.gauge({ name: 'tonwatch_upstream_max_lag_blocks', help: 'a feature gauge' }, () => maxLag);
    const own = async () => (await self.texts())[0].toString();
    expect(await own()).not.toMatch(/^tonwatch_upstream_max_lag_blocks /m);
    expect(await own()).not.toMatch(/^tonwatch_snapshot_persisted_timestamp_seconds /m);
    maxLag = 10;
    self.persist.persisted(1_700_000_000_500);
    self.persist.failed('disk_full');
    expect(await own()).toMatch(/^tonwatch_upstream_max_lag_blocks 10$/m);
    expect(await own()).toMatch(/^tonwatch_snapshot_persisted_timestamp_seconds 1700000000.5$/m);
    expect(await own()).toMatch(/^tonwatch_snapshot_persist_failures_total\{reason="disk_full"\} 1$/m);
    expect(await own()).toMatch(/^tonwatch_snapshot_persist_failures_total\{reason="read_only"\} 0$/m);
  });

  it('counts served requests by endpoint and status across scrapes, each request once', async () => {
    const self = createSelfMetrics({ version: 't', nodeVersion: 'v20', health: healthStub() });
    const served = async () =>
      (await self.texts())[0]
        .toString()
        .split('\n')
        .filter((line) => line.startsWith('tonwatch_served_requests_total{'));
    expect(await served()).toEqual([]);
    self.servedRequest('queue_sizes', 200);
    self.servedRequest('queue_sizes', 200);
    self.servedRequest('wallet_states', 503);
    expect(await served()).toEqual([
      'tonwatch_served_requests_total{endpoint="queue_sizes",code="200"} 2',
      'tonwatch_served_requests_total{endpoint="wallet_states",code="503"} 1',
    ]);
    // Nothing new: the same totals, not counted twice.
    expect(await served()).toEqual([
      'tonwatch_served_requests_total{endpoint="queue_sizes",code="200"} 2',
      'tonwatch_served_requests_total{endpoint="wallet_states",code="503"} 1',
    ]);
    self.servedRequest('queue_sizes', 200);
    self.servedRequest('queue_sizes', 404);
    expect(await served()).toEqual([
      'tonwatch_served_requests_total{endpoint="queue_sizes",code="200"} 3',
      'tonwatch_served_requests_total{endpoint="wallet_states",code="503"} 1',
      'tonwatch_served_requests_total{endpoint="queue_sizes",code="404"} 1',
    ]);
  });
  describe("a reading of tonwatch's own metrics, reused by the scrapes that follow it", () => {
    const setup = () => {
      let clock = 1_000_000;
      const self = createSelfMetrics({ version: 't', nodeVersion: 'v20', defaultMetrics: false, now: () => clock, health: healthStub() });
      return { self, own: async () => (await self.texts())[0], advance: (ms: number) => (clock += ms) };
    };

    it('while nothing but scrapes happened, for up to OWN_METRICS_REUSE_MS; then read again', async () => {
      const { self, own, advance } = setup();
      const first = await own();
      // What a scrape records about itself does not make a new reading …
      self.servedRequest(METRICS_ENDPOINT, 200);
      self.metricsRendered('gzip', 0.001, 1234);
      self.metricsInFlight(1);
      advance(OWN_METRICS_REUSE_MS - 1);
      expect(await own()).toBe(first);
      // … and shows once the reading is that old.
      advance(1);
      const later = (await own()).toString();
      expect(later).toContain(`tonwatch_served_requests_total{endpoint="${METRICS_ENDPOINT}",code="200"} 1`);
      expect(later).toContain('tonwatch_metrics_response_size_bytes{encoding="gzip"} 1234');
    });

    it('not once anything else changed: the next scrape reads them again', async () => {
      const { self, own } = setup();
      const readThrough = self.own.counter({ name: 'tonwatch_read_through_addresses_total', help: 'a feature counter', labelNames: ['result'] });
      const changes: [string, () => void, RegExp][] = [
        [
          'a request to another endpoint',
          () => self.servedRequest('queue_sizes', 200),
          /tonwatch_served_requests_total\{endpoint="queue_sizes",code="200"\} 1/,
        ],
        ['a poll', () => self.own.observePoll('queue_sizes', 0.2), /tonwatch_poll_duration_seconds_count\{query="queue_sizes"\} 1/],
        [
          'an upstream request',
          () => self.upstream.request('a', 'queue_sizes', '200', 0.01),
          /tonwatch_upstream_requests_total\{upstream="a",query="queue_sizes",code="200"\} 1/,
        ],
        [
          'an upstream skipped',
          () => self.upstream.skipped('a', 'queue_sizes', 'lagging'),
          /tonwatch_upstream_skipped_total\{upstream="a",query="queue_sizes",reason="lagging"\} 1/,
        ],
        ['a feature counter', () => readThrough(['fetched'], 3), /tonwatch_read_through_addresses_total\{result="fetched"\} 3/],
        ['a refused reload', () => self.configReloaded(false), /tonwatch_config_last_reload_successful 0/],
      ];
      for (const [what, change, shows] of changes) {
        const before = await own();
        expect(await own(), what).toBe(before);
        change();
        const after = await own();
        expect(after, what).not.toBe(before);
        expect(after.toString(), what).toMatch(shows);
      }
    });

    it('not when the reading failed', async () => {
      const { self, own } = setup();
      let fail = true;
      new Gauge({
        name: 'test_flaky',
        help: 'Fails to collect while fail is set.',
        registers: [self.registry],
        collect() {
          if (fail) throw new Error('collect failed');
          this.set(1);
        },
      });
      await expect(own()).rejects.toThrow('collect failed');
      fail = false;
      expect((await own()).toString()).toContain('test_flaky 1');
    });
  });
});
