import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { basename, dirname } from 'node:path';
import { expect, it } from 'vitest';

// test/helpers/temp-root.ts: a run's temporary files, its tests' and its processes', go
// into one directory that the run removes at its end.
it('a test and the processes it starts make their temporary files in the run’s own directory', () => {
  const root = tmpdir();
  expect(basename(root)).toMatch(/^tonwatch-test-/);
  expect(dirname(root)).not.toContain('tonwatch-test-');
  const child = execFileSync(process.execPath, ['-p', 'require("node:os").tmpdir()'], { encoding: 'utf8' }).trim();
  expect(child).toBe(root);
});
