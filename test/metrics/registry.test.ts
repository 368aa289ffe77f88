import { describe, expect, it } from 'vitest';
import { createSelfMetrics, PROCESS_METRICS_EVERY_MS } from '../../src/metrics/registry.js';
import { healthStub } from '../helpers/health.js';

describe('self metrics', () => {
  it("reads tonwatch's own metrics at every scrape, and Node's process metrics at most once a second", async () => {
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
});
