import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real processes; give them room on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The daemons the tests start keep their start caches in a folder of the run's, not in ~/.cache.
    env: { TONWATCH_CACHE_DIR: mkdtempSync(join(tmpdir(), 'tonwatch-test-cache-')) },
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
  },
});
