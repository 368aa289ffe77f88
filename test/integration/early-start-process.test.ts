import { statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCacheFile } from '../../src/config/start-cache-path.js';
import { FORMAT, QUEUE_FILE_VERSION } from '../../src/snapshot/queue-file.js';
import { eventually, freePort, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * Restarts of the real daemon whose last start left an early record: it listens before
 * most of its code is loaded, answers getOutMsgQueueSizes from the persisted queue sizes
 * as the daemon does, holds the rest for the daemon, and counts what it served where the
 * daemon counts. A changed config byte or a changed variable it names means no early
 * answers until a start has made the record again.
 */
/**
 * Two v2 bodies are the same answer: equal but for the fetch time in `@extra`, which each
 * start turns from the file's wall time to its own process clock and back (domain/clock.ts),
 * within a few milliseconds.
 */
function expectSameAnswer(a: string, b: string): void {
  const split = (body: string) => {
    const parsed = JSON.parse(body) as { result: { '@extra': string } };
    const [time, ...rest] = parsed.result['@extra'].split(':');
    return { time: Number(time), rest: rest.join(':'), body: JSON.stringify({ ...parsed, result: { ...parsed.result, '@extra': '' } }) };
  };
  const [x, y] = [split(a), split(b)];
  expect(x.body).toBe(y.body);
  expect(x.rest).toBe(y.rest);
  expect(Math.abs(x.time - y.time)).toBeLessThan(0.05);
}

describe('a restart answering before its code is loaded, real processes', () => {
  let dir: string;
  let port: number;
  const running: RunningProcess[] = [];
  const config = (comment = ''): string =>
    `listen: { host: 127.0.0.1, port: ${port}, webConfigFile: ./web.yml }
upstreams: [ { name: down, url: "\${TW_UPSTREAM}", timeoutMs: 500 } ]
schedule: { queueSizes: "0 0 1 1 *", wallets: "0 0 1 1 *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 3600 }
${comment}`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tonwatch-early-'));
    port = await freePort();
    await writeFile(join(dir, 'tonwatch.yml'), config());
    await writeFile(join(dir, 'web.yml'), 'http_server_config:\n  headers: { X-Frame-Options: deny }\n');
    const queueSizes = {
      fetchedAt: Date.now() - 5_000,
      upstream: 'toncenter',
      extMsgQueueSizeLimit: 8000,
      shards: [{ workchain: -1, shard: '-9223372036854775808', seqno: 7, rootHash: 'r'.repeat(44), fileHash: 'f'.repeat(44), size: 12 }],
    };
    await writeFile(join(dir, 'snapshot.json'), `${JSON.stringify({ format: FORMAT, version: QUEUE_FILE_VERSION, part: 'queue_sizes', queueSizes })}\n`);
  });

  afterAll(async () => {
    for (const proc of running) await proc.stop('SIGKILL');
  });

  const cacheFile = (): string => startCacheFile(join(dir, 'cache'), join(dir, 'tonwatch.yml'));
  const savedAt = (): number | undefined => statSync(cacheFile(), { throwIfNoEntry: false })?.mtimeMs;

  /** One run: v2 asked from the spawn on until it answers; the started line's `early`, and what was answered. */
  async function run(upstream: string, { saves }: { saves: boolean }) {
    const before = savedAt();
    const daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')], { TONWATCH_CACHE_DIR: join(dir, 'cache'), TW_UPSTREAM: upstream });
    running.push(daemon);
    const v2Url = `http://127.0.0.1:${port}/api/v2/getOutMsgQueueSizes`;
    const first = await eventually(
      () =>
        fetch(v2Url).then(
          (r) => (r.status === 200 ? r : undefined),
          () => undefined,
        ),
      20_000,
      'a first v2 answer',
    );
    const firstBody = await first.text();
    // Asked at once: an early server holds it, and the daemon answers it.
    const readyz = await fetch(`http://127.0.0.1:${port}/readyz`);
    const [line = ''] = await daemon.waitFor(/\{[^\n]*"msg":"tonwatch started"[^\n]*\}/);
    const { early } = JSON.parse(line) as { early: unknown };
    const later = await fetch(v2Url);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const served = Number(/^tonwatch_served_requests_total\{endpoint="queue_sizes",code="200"\} (\d+)/m.exec(metrics)?.[1]);
    if (saves) await eventually(async () => (savedAt() !== before ? true : undefined), 20_000, 'the start cache saved');
    expect((await daemon.stop()).code).toBe(0);
    return { early, first, firstBody, readyz: readyz.status, later: { body: await later.text(), headers: later.headers }, served };
  }

  it('answers v2 early after a start that kept the record, as the daemon does; a changed config or variable starts without it', async () => {
    const plain = await run('http://127.0.0.1:1/api', { saves: true });
    expect(plain.early).toBe('off');

    const early = await run('http://127.0.0.1:1/api', { saves: false });
    expect(early.early).toMatchObject({ answered: expect.any(Number), held: expect.any(Number) });
    // What the daemon answers once loaded (and the plain start answered), headers included.
    expectSameAnswer(early.firstBody, plain.firstBody);
    expectSameAnswer(early.firstBody, early.later.body);
    expect(early.first.headers.get('x-frame-options')).toBe('deny');
    expect(early.first.headers.get('content-type')).toBe(early.later.headers.get('content-type'));
    expect(early.readyz).toBe(200);
    // Every v2 answer counted, the early ones included: the first, and the later one.
    expect(early.served).toBeGreaterThanOrEqual(2);
    expect(early.served).toBeGreaterThanOrEqual((early.early as { answered: number }).answered + 1);

    await writeFile(join(dir, 'tonwatch.yml'), config('# edited\n'));
    expect((await run('http://127.0.0.1:1/api', { saves: true })).early).toBe('off');
    expect((await run('http://127.0.0.1:1/api', { saves: false })).early).not.toBe('off');

    // The variable the config names changed: the record no longer holds.
    const otherEnv = await run('http://127.0.0.1:2/api', { saves: true });
    expect(otherEnv.early).toBe('off');
    expectSameAnswer(otherEnv.firstBody, plain.firstBody);
    expect((await run('http://127.0.0.1:2/api', { saves: false })).early).not.toBe('off');
  }, 120_000);
});
