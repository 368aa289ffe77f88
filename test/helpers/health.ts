import type { HealthSource } from '../../src/metrics/registry.js';

/** A HealthSource for tests: everything up and fresh, no lag check, no read-through; override what a test needs. */
export function healthStub(overrides: Partial<HealthSource> = {}): HealthSource {
  return {
    up: () => true,
    snapshotAgeSeconds: () => 0,
    lastSuccessAt: () => 0,
    watchlistSize: () => 0,
    upstreamLags: () => new Map(),
    maxLagBlocks: () => undefined,
    readThroughCacheSize: () => undefined,
    cluster: () => undefined,
    ...overrides,
  };
}
