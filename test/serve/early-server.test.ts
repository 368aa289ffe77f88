import { afterEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import { closeServer } from '../../src/serve/lifecycle.js';
import { jsonResponse } from '../../src/serve/response.js';
import { createHttpServer, type Route } from '../../src/serve/server.js';
import { startEarlyServer, type EarlyServer, type EarlySettings } from '../../src/serve/early-server.js';
import { queueSizesBody } from '../../src/serve/v2-queue-sizes.js';
import type { QueueSizesSnapshot } from '../../src/snapshot/types.js';

const SETTINGS: EarlySettings = {
  host: '127.0.0.1',
  port: 0,
  headers: { 'x-served-by': 'tonwatch' },
  maxConnections: 50,
  sendTimeoutMs: 5000,
  maxAgeSeconds: 60,
};
const now = (): number => 1_000_000;
const WALL_OFFSET = 1_764_000_000_000;
const SIZES: QueueSizesSnapshot = {
  fetchedAt: now() - 2_000,
  upstream: 'toncenter',
  extMsgQueueSizeLimit: 8000,
  shards: [{ workchain: -1, shard: '-9223372036854775808', seqno: 1, rootHash: 'r'.repeat(44), fileHash: 'f'.repeat(44), size: 3 }],
};

const started: EarlyServer[] = [];
afterEach(async () => {
  for (const early of started.splice(0)) await closeServer(early.server, 100);
});

async function early(settings: EarlySettings = SETTINGS, queueSizes = SIZES): Promise<{ early: EarlyServer; url: string }> {
  const server = await startEarlyServer({ settings, queueSizes, now, wallOffset: () => WALL_OFFSET });
  if (server === null) throw new Error('the early server did not listen');
  started.push(server);
  return { early: server, url: `http://127.0.0.1:${server.address.port}` };
}

/** The daemon's side: its routes and hooks, recording what they are told. */
function daemonOf(server: EarlyServer) {
  const served: string[] = [];
  const connections: string[] = [];
  const route = (endpoint: string, body: string): Route => ({ endpoint, handle: () => jsonResponse(200, { body }) });
  createHttpServer(
    {
      routes: new Map([
        ['/metrics', route('metrics', 'daemon metrics')],
        ['/api/v2/getOutMsgQueueSizes', route('queue_sizes', 'daemon v2')],
      ]),
      logger: pino({ level: 'silent' }),
      onServed: (endpoint, status) => served.push(`${endpoint} ${status}`),
      onConnection: (event) => connections.push(event),
      now,
    },
    server,
  );
  return { served, connections };
}

describe('the early server: answering the queue sizes before the daemon is loaded', () => {
  it('answers getOutMsgQueueSizes as the daemon would, with the web config headers, and holds everything else until the hand-over', async () => {
    const { early: server, url } = await early();
    const v2 = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
    expect(v2.status).toBe(200);
    expect(await v2.text()).toBe(queueSizesBody(SIZES, WALL_OFFSET));
    expect(v2.headers.get('x-served-by')).toBe('tonwatch');
    // No poll scheduled yet: nothing to promise a client about the next one.
    expect(v2.headers.get('cache-control')).toBe('max-age=0');
    expect((await fetch(`${url}/api/v2/getOutMsgQueueSize`, { method: 'POST', body: '{}' })).status).toBe(200);

    const metrics = fetch(`${url}/metrics`).then(async (r) => [r.status, await r.text()] as const);
    const unknown = fetch(`${url}/nowhere`).then((r) => r.status);
    const daemon = daemonOf(server);
    // Prepared is not handed over: the early server still answers.
    expect(await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).text()).toBe(queueSizesBody(SIZES, WALL_OFFSET));
    await new Promise((r) => setTimeout(r, 50));
    expect(server.counts).toEqual({ answered: 3, held: 2 });
    expect(daemon.served).toEqual([]);

    server.handOver();
    expect(await metrics).toEqual([200, JSON.stringify({ body: 'daemon metrics' })]);
    expect(await unknown).toBe(404);
    expect(await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()).toEqual({ body: 'daemon v2' });
    // What the early server served is counted where the daemon counts, with what the daemon served since.
    expect(daemon.served.sort()).toEqual(['metrics 200', 'not_found 404', 'queue_sizes 200', 'queue_sizes 200', 'queue_sizes 200', 'queue_sizes 200'].sort());
    expect(daemon.connections.filter((e) => e === 'opened').length).toBeGreaterThan(0);
  });

  it('answers 503 to what it holds when closed instead of handed over', async () => {
    const { early: server, url } = await early();
    const held = fetch(`${url}/readyz`).then(async (r) => [r.status, r.headers.get('retry-after')] as const);
    await new Promise((r) => setTimeout(r, 50));
    await server.close();
    expect(await held).toEqual([503, '1']);
    expect(server.server.listening).toBe(false);
  });

  it('answers 503 for queue sizes older than snapshot.maxAgeSeconds, as the daemon does', async () => {
    const { url } = await early({ ...SETTINGS, maxAgeSeconds: 1 });
    const v2 = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
    expect(v2.status).toBe(503);
    expect(((await v2.json()) as { error: string }).error).toMatch(/older than snapshot.maxAgeSeconds/);
  });

  it('does not listen where the address is taken', async () => {
    const { early: first } = await early();
    expect(await startEarlyServer({ settings: { ...SETTINGS, port: first.address.port }, queueSizes: SIZES, now, wallOffset: () => 0 })).toBeNull();
  });
});
