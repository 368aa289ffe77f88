import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * vitest's global setup: one directory for everything a test run makes in the temporary
 * directory, removed when the run ends. Tests make their directories with
 * `mkdtemp(join(tmpdir(), …))`, and the daemons, simulators, Prometheus and Redis they
 * start write theirs too; TMPDIR is set before vitest starts its workers, which inherit
 * it and pass it on to what they spawn, so all of it lands here. A run that is killed
 * leaves this one directory behind, not a hundred.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'tonwatch-test-'));
  process.env['TMPDIR'] = root;
  return () => {
    try {
      rmSync(root, { recursive: true, force: true, maxRetries: 3 });
    } catch (err) {
      // A mount left by a failed test, or a directory a test made read-only (without root): said, not a failed run.
      console.warn(`left ${root} behind: ${(err as Error).message}`);
    }
  };
}
