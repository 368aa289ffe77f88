import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The daemons the tests start keep their start caches in a folder of this run's, not in
 * ~/.cache/tonwatch; the folder goes with the run.
 */
export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'tonwatch-test-cache-'));
  process.env['TONWATCH_CACHE_DIR'] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
