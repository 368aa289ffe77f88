import { connect, type Socket } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConnectionDrop } from '../../src/domain/connections.js';
import { closeServer, listen } from '../../src/serve/lifecycle.js';
import { jsonResponse } from '../../src/serve/response.js';
import { createHttpServer } from '../../src/serve/server.js';
import type { Route } from '../../src/serve/route.js';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from '../../src/serve/limits.js';
import { eventually } from '../helpers/process.js';
import { createLogSink } from '../helpers/log.js';

/**
 * The server's own defences, on 127.0.0.1 and 127.0.0.2 (both loopback): at the connection
 * cap the longest-idle connection makes room and only a full house of requests in flight
 * refuses one; one client address holds at most its cap; the Host check; nosniff on
 * every answer, the server's own error replies included; an error reply's socket is
 * closed whatever the client does.
 */

/** What the server of the test running told of its connections. */
let events: ('opened' | 'closed' | ConnectionDrop)[] = [];
let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  if (server) await closeServer(server, 100);
  server = undefined;
});

/** A server whose /hang route answers only when `release` is called. */
async function start(limits: Partial<ConnectionLimits>, allowedHosts: string[] = []) {
  const hanging: (() => void)[] = [];
  const own: typeof events = [];
  events = own;
  const routes = new Map<string, Route>([
    ['/ok', { endpoint: 'ok', handle: () => jsonResponse(200, { ok: true }) }],
    ['/hang', { endpoint: 'hang', handle: () => new Promise((resolve) => hanging.push(() => resolve(jsonResponse(200, { ok: true })))) }],
  ]);
  server = createHttpServer({
    routes,
    logger: createLogSink().logger,
    onServed: () => undefined,
    limits: () => ({ ...DEFAULT_CONNECTION_LIMITS, ...limits }),
    onConnection: (event) => own.push(event),
    allowedHosts: () => new Set(allowedHosts),
  });
  const { port } = await listen(server, '127.0.0.1', 0);
  return { port, release: () => hanging.splice(0).forEach((done) => done()) };
}

function open(port: number, localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    sockets.push(socket);
  });
}

/** Sends a request and resolves with the raw answer's first chunk. */
function ask(socket: Socket, path: string, host = 'tonwatch'): Promise<string> {
  return new Promise((resolve) => {
    socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

const isClosed = (socket: Socket): Promise<boolean> =>
  socket.destroyed ? Promise.resolve(true) : new Promise((resolve) => socket.once('close', () => resolve(true)));
const count = (event: string) => events.filter((e) => e === event).length;

describe('connections at the cap', () => {
  it('closes the longest-idle connection to take a new one, and keeps connections with a request in flight', async () => {
    const { port, release } = await start({ maxConnections: 3, maxConnectionsPerClient: 10 });
    const busy = await open(port);
    void ask(busy, '/hang');
    const idleOld = await open(port);
    await ask(idleOld, '/ok');
    await new Promise((r) => setTimeout(r, 20));
    const idleNew = await open(port);
    await ask(idleNew, '/ok');
    // The fourth: the longest idle goes, not the busy one, not the one idle for less time.
    const fourth = await open(port);
    expect(await isClosed(idleOld)).toBe(true);
    expect(busy.destroyed || idleNew.destroyed).toBe(false);
    expect(await ask(fourth, '/ok')).toMatch(/^HTTP\/1\.1 200/);
    expect(count('idle_evicted')).toBe(1);
    release();
  });

  it('refuses a new connection only when every slot has a request in flight', async () => {
    const { port, release } = await start({ maxConnections: 2, maxConnectionsPerClient: 10 });
    for (let i = 0; i < 2; i += 1) void ask(await open(port), '/hang');
    await eventually(async () => (count('opened') === 2 ? true : undefined), 2_000);
    await new Promise((r) => setTimeout(r, 20));
    const refused = await open(port);
    expect(await isClosed(refused)).toBe(true);
    expect(count('max_connections')).toBe(1);
    expect(count('idle_evicted')).toBe(0);
    release();
  });

  it("holds one client address to its cap, making room among its own connections, never another's", async () => {
    const { port, release } = await start({ maxConnections: 10, maxConnectionsPerClient: 2 });
    const other = await open(port, '127.0.0.2');
    await ask(other, '/ok');
    const first = await open(port);
    await ask(first, '/ok');
    const second = await open(port);
    void ask(second, '/hang');
    // A third from 127.0.0.1: its own idle one goes.
    const third = await open(port);
    expect(await isClosed(first)).toBe(true);
    void ask(third, '/hang');
    await new Promise((r) => setTimeout(r, 20));
    // A fourth, both of its own busy: refused; 127.0.0.2's idle connection untouched.
    const fourth = await open(port);
    expect(await isClosed(fourth)).toBe(true);
    expect(other.destroyed).toBe(false);
    expect(count('max_connections_per_client')).toBe(1);
    release();
  });
});

describe('every answer, and the Host check', () => {
  it('sends X-Content-Type-Options: nosniff on routed answers, 404s and the server’s own 400s', async () => {
    const { port } = await start({});
    expect(await ask(await open(port), '/ok')).toMatch(/x-content-type-options: nosniff/i);
    expect(await ask(await open(port), '/nowhere')).toMatch(/x-content-type-options: nosniff/i);
    const socket = await open(port);
    const answer = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    expect(await answer).toMatch(/^HTTP\/1\.1 400[\s\S]*x-content-type-options: nosniff/i);
  });

  it('closes the socket of an error reply even when the client never reads nor closes', async () => {
    const { port } = await start({});
    const socket = await open(port);
    // It never reads (its half stays open): the server closes its side anyway.
    socket.pause();
    socket.write('NOT HTTP AT ALL\r\n\r\n');
    await eventually(async () => (count('closed') === 1 ? true : undefined), 3_000, 'the server closing the connection');
  });

  it('answers 421 to a Host listen.allowedHosts does not name, with or without its port', async () => {
    const { port } = await start({}, ['tonwatch.example', '127.0.0.1:9999', '::1']);
    expect(await ask(await open(port), '/ok', 'evil.example')).toMatch(/^HTTP\/1\.1 421/);
    expect(await ask(await open(port), '/ok', 'tonwatch.example')).toMatch(/^HTTP\/1\.1 200/);
    expect(await ask(await open(port), '/ok', `tonwatch.example:${port}`)).toMatch(/^HTTP\/1\.1 200/);
    expect(await ask(await open(port), '/ok', 'TONWATCH.EXAMPLE')).toMatch(/^HTTP\/1\.1 200/);
    expect(await ask(await open(port), '/ok', '127.0.0.1:9999')).toMatch(/^HTTP\/1\.1 200/);
    expect(await ask(await open(port), '/ok', '127.0.0.1:1234')).toMatch(/^HTTP\/1\.1 421/);
    expect(await ask(await open(port), '/ok', `[::1]:${port}`)).toMatch(/^HTTP\/1\.1 200/);
  });
});
