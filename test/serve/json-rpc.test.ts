import { connect } from 'node:net';
import type { Server } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createJsonRpcRoute } from '../../src/serve/json-rpc.js';
import { MAX_JSON_RPC_BODY_BYTES } from '../../src/serve/response.js';
import { closeServer, listen } from '../../src/serve/lifecycle.js';
import { createHttpServer } from '../../src/serve/server.js';
import type { ServedRequest } from '../../src/serve/route.js';
import { createQueueSizesHandler } from '../../src/features/queue-sizes/v2.js';
import type { QueueSizesSnapshot } from '../../src/features/queue-sizes/types.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { createLogSink } from '../helpers/log.js';

/**
 * POST /api/v2/jsonRPC over the real HTTP server on 127.0.0.1: the answer of the GET path
 * in toncenter's JSON-RPC envelope, and each error envelope of toncenter's Python server.
 */

const FETCHED = 1_755_815_024_462;

describe('JSON-RPC route', () => {
  let server: Server;
  let url: string;
  let snapshot: QueueSizesSnapshot | null;
  let served: [string, number][];
  const now = FETCHED + 2_500;

  beforeEach(async () => {
    snapshot = queueSnapshot();
    served = [];
    const handler = createQueueSizesHandler();
    const queueSizes = (request: ServedRequest) => handler.serve(snapshot, { method: request.method, now, maxAgeSeconds: 300, nextPollDueAt: now + 4_000 });
    server = createHttpServer({
      routes: new Map([
        ['/api/v2/getOutMsgQueueSizes', { endpoint: 'queue_sizes', handle: queueSizes, maxBodyBytes: MAX_JSON_RPC_BODY_BYTES }],
        ['/api/v2/jsonRPC', createJsonRpcRoute({ getOutMsgQueueSizes: queueSizes, getOutMsgQueueSize: queueSizes })],
      ]),
      logger: createLogSink().logger,
      onServed: (endpoint, code) => served.push([endpoint, code]),
    });
    const { port } = await listen(server, '127.0.0.1', 0);
    url = `http://127.0.0.1:${port}`;
  });
  afterEach(() => closeServer(server, 100));

  const post = async (body: string | object, path = '/api/v2/jsonRPC', headers: Record<string, string> = {}) => {
    const response = await fetch(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, json: (await response.json()) as Record<string, unknown> };
  };

  it.each(['getOutMsgQueueSizes', 'getOutMsgQueueSize'])(
    'answers %s with the GET path result, id as a string, jsonrpc 2.0, and its caching headers',
    async (method) => {
      const get = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
      const getBody = (await get.json()) as { result: unknown };
      const answer = await post({ id: 1, jsonrpc: '2.0', method, params: {} });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ ok: true, result: getBody.result, id: '1', jsonrpc: '2.0' });
      for (const name of ['last-modified', 'age', 'cache-control']) expect(answer.headers.get(name)).toBe(get.headers.get(name));
      expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(served).toContainEqual(['json_rpc', 200]);
    },
  );

  it('keeps a string id, leaves out an absent or null id, and takes api_key in the query or X-API-Key without reading it', async () => {
    expect((await post({ id: 'abc', method: 'getOutMsgQueueSizes' })).json).toMatchObject({ ok: true, id: 'abc', jsonrpc: '2.0' });
    const noId = await post({ method: 'getOutMsgQueueSizes' }, '/api/v2/jsonRPC?api_key=secret');
    expect(noId.status).toBe(200);
    expect(noId.json).not.toHaveProperty('id');
    const nullId = await post({ method: 'getOutMsgQueueSizes', id: null }, '/api/v2/jsonRPC', { 'x-api-key': 'secret' });
    expect(nullId.json).not.toHaveProperty('id');
    expect(nullId.json['ok']).toBe(true);
  });

  it('answers 503 in the JSON-RPC envelope with Retry-After when there is no snapshot', async () => {
    snapshot = null;
    const answer = await post({ id: '7', method: 'getOutMsgQueueSizes' });
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('4');
    expect(answer.json).toEqual({ ok: false, error: expect.stringMatching(/no queue-size snapshot/) as unknown, code: 503, id: '7', jsonrpc: '2.0' });
  });

  it('answers an unknown method 422 "Unknown method" with the id', async () => {
    const answer = await post({ id: 3, method: 'getAddressBalance', params: { address: 'x' } });
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ ok: false, error: 'Unknown method', id: '3', jsonrpc: '2.0' });
  });

  it.each([
    ['not JSON', '{"method": getOutMsgQueueSizes'],
    ['no method', { id: 1, params: {} }],
    ['a method that is not a string', { method: 5 }],
    ['params that are not an object', { method: 'getOutMsgQueueSizes', params: ['a'] }],
    ['a batch', [{ id: 1, method: 'getOutMsgQueueSizes' }]],
    ['an empty body', ''],
  ])('answers %s with 422 "Validation error: …" and code 422', async (_what, body) => {
    const answer = await post(body);
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ ok: false, error: expect.stringMatching(/^Validation error: .+/) as unknown, code: 422 });
  });

  it('answers a body that is not JSON with a fixed message, quoting none of it', async () => {
    const answer = await post('{"method": <script>alert(1)</script>');
    expect(answer.status).toBe(422);
    expect(answer.json).toEqual({ ok: false, error: 'Validation error: the body is not valid JSON', code: 422 });
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('answers GET 405 in the v2 envelope, with Allow: POST', async () => {
    const response = await fetch(`${url}/api/v2/jsonRPC`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({ ok: false, error: 'Method Not Allowed', code: 405 });
  });

  it('answers a body over 64 KiB 413 and closes the connection, whether Content-Length says so or not', async () => {
    const big = JSON.stringify({ method: 'getOutMsgQueueSizes', params: { pad: 'x'.repeat(MAX_JSON_RPC_BODY_BYTES) } });
    const declared = await post(big);
    expect(declared.status).toBe(413);
    expect(declared.headers.get('connection')).toBe('close');
    expect(declared.json).toMatchObject({ ok: false, code: 413 });
    // Chunked: no Content-Length, the limit is found while reading.
    const chunked = await rawRequest(
      new URL(url).port,
      `POST /api/v2/jsonRPC HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n${(70_000).toString(16)}\r\n${'x'.repeat(70_000)}\r\n0\r\n\r\n`,
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 413 /);
    // The server still answers afterwards.
    expect((await post({ id: 1, method: 'getOutMsgQueueSizes' })).status).toBe(200);
  });

  it("takes POST on the v2 path with a JSON body, as toncenter's C++ server does, and answers as GET", async () => {
    const get = (await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as unknown;
    const answer = await post({}, '/api/v2/getOutMsgQueueSizes');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(get);
  });
});

function rawRequest(port: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? resolve(answer) : reject(err)));
  });
}
