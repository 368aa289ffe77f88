import { describe, expect, it } from 'vitest';
import { daemonConfigArg } from '../src/cli-options.js';
import { startCacheFile } from '../src/config/start-cache-path.js';
import { startCacheOf } from '../src/start-prefetch.js';

describe('the start cache read before the code is loaded', () => {
  it('is read only for a command line that runs the daemon, with the --config it gives', () => {
    expect(daemonConfigArg([])).toBeUndefined();
    expect(daemonConfigArg(['--config', 'a.yml'])).toBe('a.yml');
    expect(daemonConfigArg(['-c', 'a.yml', '--web.config.file', 'w.yml'])).toBe('a.yml');
    expect(daemonConfigArg(['--config=a.yml'])).toBe('a.yml');
    for (const other of [['check-config', '--config', 'a.yml'], ['demo'], ['--version'], ['--help'], ['--no-such-option']]) {
      expect(daemonConfigArg(other)).toBeNull();
    }
  });

  it('is the file the daemon opens: --config, else $TONWATCH_CONFIG, else ./tonwatch.yml, in the cache folder run.ts chooses', () => {
    const env = { HOME: '/home/u' };
    const cache = '/home/u/.cache/tonwatch';
    expect(startCacheOf(['--config', 'conf/a.yml'], env, '/srv')).toBe(startCacheFile(cache, '/srv/conf/a.yml'));
    expect(startCacheOf(['--config', '/etc/tonwatch.yml'], { ...env, TONWATCH_CONFIG: 'b.yml' }, '/srv')).toBe(startCacheFile(cache, '/etc/tonwatch.yml'));
    expect(startCacheOf([], { ...env, TONWATCH_CONFIG: 'b.yml' }, '/srv')).toBe(startCacheFile(cache, '/srv/b.yml'));
    expect(startCacheOf([], env, '/srv')).toBe(startCacheFile(cache, '/srv/tonwatch.yml'));
    expect(startCacheOf([], { ...env, TONWATCH_CACHE_DIR: '/var/cache/tw' }, '/srv')).toBe(startCacheFile('/var/cache/tw', '/srv/tonwatch.yml'));
    expect(startCacheOf([], { ...env, TONWATCH_CACHE_DIR: '' }, '/srv')).toBeNull();
    expect(startCacheOf(['check-config'], env, '/srv')).toBeNull();
  });
});
