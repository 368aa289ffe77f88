import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeServer, listen } from '../../src/serve/lifecycle.js';
import { createHttpServer } from '../../src/serve/server.js';
import type { Route } from '../../src/serve/route.js';
import { MAX_HEADER_BYTES } from '../../src/serve/limits.js';
import { jsonResponse } from '../../src/serve/response.js';
import { createLogSink } from '../helpers/log.js';

/** The HTTP face on 127.0.0.1, port 0: routing, errors, HEAD, bounded headers, draining. */

function serverWith(routes: [string, Route][]) {
  const log = createLogSink();
  const served: [string, number][] = [];
  const server = createHttpServer({ routes: new Map(routes), logger: log.logger, onServed: (endpoint, code) => served.push([endpoint, code]) });
  return { server, log, served };
}

/** Sends raw bytes and returns the raw answer (for requests fetch() would not send). */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('HTTP server', () => {
  let server: Server | undefined;
  afterEach(async () => {
    if (server) await closeServer(server, 100);
  });

  const start = async (routes: [string, Route][]) => {
    const made = serverWith(routes);
    server = made.server;
    const { port } = await listen(made.server, '127.0.0.1', 0);
    return { ...made, port, url: `http://127.0.0.1:${port}` };
  };

  it('answers at most maxInFlight requests of a limited route at once: 503 with Retry-After beyond, counted until each answer is sent', async () => {
    const waiting: (() => void)[] = [];
    const counts: number[] = [];
    let limit = 2;
    const t = await start([
      [
        '/slow',
        {
          endpoint: 'slow',
          maxInFlight: () => limit,
          onInFlight: (n) => counts.push(n),
          handle: () => new Promise((resolve) => waiting.push(() => resolve(jsonResponse(200, { ok: true })))),
        },
      ],
      ['/other', { endpoint: 'other', handle: () => jsonResponse(200, { ok: true }) }],
    ]);
    const first = fetch(`${t.url}/slow`);
    const second = fetch(`${t.url}/slow`);
    await expect.poll(() => waiting.length).toBe(2);
    const refused = await fetch(`${t.url}/slow`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toEqual({ error: 'too many /slow requests at once (limit 2); retry shortly' });
    // Other routes are not limited by it.
    expect((await fetch(`${t.url}/other`)).status).toBe(200);
    for (const release of waiting.splice(0)) release();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    await expect.poll(() => counts.at(-1)).toBe(0);
    expect(Math.max(...counts)).toBe(2);
    // A limit of 0 means none.
    limit = 0;
    const many = Array.from({ length: 5 }, () => fetch(`${t.url}/slow`));
    await expect.poll(() => waiting.length).toBe(5);
    for (const release of waiting.splice(0)) release();
    expect((await Promise.all(many)).map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(t.served.filter(([endpoint, code]) => endpoint === 'slow' && code === 503)).toHaveLength(1);
  });

  it('routes by path alone, hands the handler the raw query, and counts every answer by endpoint and status', async () => {
    const seen: string[] = [];
    const t = await start([
      [
        '/a',
        {
          endpoint: 'a',
          handle: (request) => {
            seen.push(`${request.method} ${request.path} ${request.query}`);
            return jsonResponse(200, { ok: true });
          },
        },
      ],
    ]);
    const a = await fetch(`${t.url}/a?x=1&address=a%2Cb`);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await a.json()).toEqual({ ok: true });
    expect(seen).toEqual(['GET /a x=1&address=a%2Cb']);
    const missing = await fetch(`${t.url}/nope?x`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: 'no such endpoint: /nope' });
    expect(t.served).toEqual([
      ['a', 200],
      ['not_found', 404],
    ]);
  });

  it('answers 500 with a JSON error when a handler throws, logs it, and keeps serving', async () => {
    const t = await start([
      [
        '/boom',
        {
          endpoint: 'boom',
          handle: () => {
            throw new Error('handler bug');
          },
        },
      ],
      ['/ok', { endpoint: 'ok', handle: () => jsonResponse(200, {}) }],
    ]);
    const boom = await fetch(`${t.url}/boom`);
    expect(boom.status).toBe(500);
    expect(await boom.json()).toEqual({ error: 'internal error' });
    expect(t.log.lines().find((l) => l['msg'] === 'handler failed')).toMatchObject({ path: '/boom' });
    expect((await fetch(`${t.url}/ok`)).status).toBe(200);
  });

  it('writes bodies given as a list of buffers in order, with the right length, and none for HEAD', async () => {
    const parts = [Buffer.from('{"a":'), Buffer.from('[1,2'), Buffer.from(']}')];
    const t = await start([
      ['/parts', { endpoint: 'parts', handle: async () => ({ status: 200, headers: { 'content-type': 'application/json' }, body: parts }) }],
    ]);
    const get = await fetch(`${t.url}/parts`);
    expect(get.headers.get('content-length')).toBe('11');
    expect(await get.text()).toBe('{"a":[1,2]}');
    const head = await fetch(`${t.url}/parts`, { method: 'HEAD' });
    expect(head.headers.get('content-length')).toBe('11');
    expect(await head.text()).toBe('');
  });

  it('sends a streamed body a part at a time as the client reads it, and stops making parts when the client goes away', async () => {
    const PART = 256 * 1024;
    const PARTS = 64;
    let made = 0;
    let finished = false;
    let failing = false;
    const stream = async function* () {
      try {
        for (let i = 0; i < PARTS; i += 1) {
          if (failing && i === 3) throw new Error('part could not be made');
          made += 1;
          yield Buffer.alloc(PART, 97 + (i % 26));
        }
      } finally {
        finished = true;
      }
    };
    const t = await start([
      ['/stream', { endpoint: 'stream', handle: () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: { length: PART * PARTS, stream } }) }],
    ]);
    // Whole, with its length, and nothing for HEAD.
    const get = await fetch(`${t.url}/stream`);
    expect(get.headers.get('content-length')).toBe(String(PART * PARTS));
    const body = Buffer.from(await get.arrayBuffer());
    expect(body.length).toBe(PART * PARTS);
    expect(body[PART * 27]).toBe(98);
    made = 0;
    const head = await fetch(`${t.url}/stream`, { method: 'HEAD' });
    expect(await head.text()).toBe('');
    expect(made).toBe(0);

    // A client that reads nothing: parts stop being made once the socket's buffers are full.
    finished = false;
    const socket = connect(t.port, '127.0.0.1', () => socket.write('GET /stream HTTP/1.1\r\nhost: x\r\n\r\n'));
    socket.pause();
    // Until the parts stop coming: the socket's buffers are full.
    let seen = -1;
    await expect
      .poll(
        () => {
          const settledAt = made > 0 && made === seen;
          seen = made;
          return settledAt;
        },
        { interval: 50, timeout: 5_000 },
      )
      .toBe(true);
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(PARTS);
    socket.destroy();
    await expect.poll(() => finished).toBe(true);
    expect(made).toBeLessThan(PARTS);
    expect(t.log.lines().filter((l) => l['msg'] === 'streamed response failed')).toEqual([]);

    // A part that cannot be made cuts the response short, and is logged.
    failing = true;
    await expect(fetch(`${t.url}/stream`).then((r) => r.arrayBuffer())).rejects.toThrow();
    await expect.poll(() => t.log.lines().find((l) => l['msg'] === 'streamed response failed')).toMatchObject({ endpoint: 'stream' });
    expect((await fetch(`${t.url}/stream`, { method: 'HEAD' })).status).toBe(200);
  });

  it('refuses headers past the bound with 431 and malformed requests with 400, both in JSON', async () => {
    const t = await start([['/a', { endpoint: 'a', handle: () => jsonResponse(200, {}) }]]);
    const huge = await rawRequest(t.port, `GET /a?${'x'.repeat(MAX_HEADER_BYTES + 10)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toMatch(/"error":"request line and headers exceed/);
    const garbage = await rawRequest(t.port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(t.served).toEqual([
      ['client_error', 431],
      ['client_error', 400],
    ]);
    expect((await fetch(`${t.url}/a`)).status).toBe(200);
  });

  it('lets a request in flight finish when closing, then stops listening', async () => {
    let finish: () => void = () => undefined;
    let entered: () => void = () => undefined;
    const handlerHolds = new Promise<void>((resolve) => (entered = resolve));
    const t = await start([
      [
        '/slow',
        {
          endpoint: 'slow',
          handle: () =>
            new Promise((resolve) => {
              finish = () => resolve(jsonResponse(200, { done: true }));
              entered();
            }),
        },
      ],
    ]);
    const inFlight = fetch(`${t.url}/slow`);
    await handlerHolds;
    const closing = closeServer(t.server, 5_000);
    finish();
    expect((await inFlight).status).toBe(200);
    await closing;
    server = undefined;
    await expect(fetch(`${t.url}/slow`)).rejects.toThrow();
  });
});
