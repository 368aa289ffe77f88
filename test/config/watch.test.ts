import { mkdtempSync, renameSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchFiles } from '../../src/config/watch.js';
import { createLogSink } from '../helpers/log.js';

/** File watching for reloads, on a real folder: edits, unrelated files, and Kubernetes' ..data swap. */

const settle = (ms = 150) => new Promise((resolve) => setTimeout(resolve, ms));

describe('watchFiles', () => {
  it('fires (debounced) on a change of a watched file, not of another file in its folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-watch-'));
    writeFileSync(join(dir, 'tonwatch.yml'), 'a: 1\n');
    let changes = 0;
    const watcher = watchFiles([join(dir, 'tonwatch.yml')], () => changes++, createLogSink().logger, 20);
    try {
      writeFileSync(join(dir, 'other.txt'), 'x');
      await settle();
      expect(changes).toBe(0);
      writeFileSync(join(dir, 'tonwatch.yml'), 'a: 2\n');
      writeFileSync(join(dir, 'tonwatch.yml'), 'a: 3\n');
      await expect.poll(() => changes).toBe(1);
    } finally {
      watcher.close();
    }
  });

  it("fires when Kubernetes swaps a mounted ConfigMap's ..data symlink", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tw-watch-'));
    // The layout kubelet's atomic writer makes: ..<timestamp>/file, ..data → it, file → ..data/file.
    mkdirSync(join(dir, '..2026_11_23_01'));
    writeFileSync(join(dir, '..2026_11_23_01', 'tonwatch.yml'), 'a: 1\n');
    symlinkSync('..2026_11_23_01', join(dir, '..data'));
    symlinkSync(join('..data', 'tonwatch.yml'), join(dir, 'tonwatch.yml'));
    let changes = 0;
    const watcher = watchFiles([join(dir, 'tonwatch.yml')], () => changes++, createLogSink().logger, 20);
    try {
      mkdirSync(join(dir, '..2026_11_23_02'));
      writeFileSync(join(dir, '..2026_11_23_02', 'tonwatch.yml'), 'a: 2\n');
      symlinkSync('..2026_11_23_02', join(dir, '..data_tmp'));
      renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
      await expect.poll(() => changes).toBeGreaterThanOrEqual(1);
    } finally {
      watcher.close();
    }
  });
});
