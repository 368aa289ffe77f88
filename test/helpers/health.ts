import type { HealthSource } from '../../src/metrics/registry.js';

/** A HealthSource for tests: the two core queries polled, up and fresh, one process; override what a test needs. */
export function healthStub(overrides: Partial<HealthSource> = {}): HealthSource {
  return {
    queries: () => ['queue_sizes', 'wallets'],
    up: () => true,
    snapshotAgeSeconds: () => 0,
    lastSuccessAt: () => 0,
    watchlistSize: () => 0,
    cluster: () => undefined,
    ...overrides,
  };
}
