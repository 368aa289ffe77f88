import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start real processes; give them room on a shared 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    setupFiles: ['test/helpers/setup.ts'],
    // Everything a run makes in the temporary directory goes into one, removed at the end.
    globalSetup: ['test/helpers/temp-root.ts'],
    reporters: process.env['CI'] ? ['default', ['json', { outputFile: '.vitest-report.json' }]] : ['default'],
  },
});
