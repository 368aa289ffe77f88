import { describe, expect, it } from 'vitest';
import { createUpstreamHealth } from '../../src/features/status-page/upstream-health.js';

describe('upstream health for the status page', () => {
  it('takes a 2xx (HTTP) or ok (liteserver) as a success, any other code not, and counts codes over ten minutes', () => {
    const health = createUpstreamHealth();
    health.observe('http', '200', 1_000);
    health.observe('http', '429', 2_000);
    health.observe('lite', 'timeout', 1_000);
    expect(health.view('lite', 3_000).lastSuccessAt).toBeUndefined();
    health.observe('lite', 'ok', 5_000);
    health.observe('lite', 'liteserver_error_651', 6_000);
    expect(health.view('http', 7_000)).toEqual({ lastSuccessAt: 1_000, recentCodes: { '200': 1, '429': 1 } });
    expect(health.view('lite', 7_000)).toEqual({ lastSuccessAt: 5_000, recentCodes: { timeout: 1, ok: 1, liteserver_error_651: 1 } });
    expect(health.view('lite', 11 * 60_000).recentCodes).toEqual({});
  });
});
