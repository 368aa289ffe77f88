import { describe, expect, it } from 'vitest';
import { bodyText } from '../helpers/response.js';
import { createQueueSizesHandler } from '../../src/features/queue-sizes/v2.js';
import { queueSnapshot } from '../helpers/fixtures.js';

const handler = createQueueSizesHandler();
const serveQueueSizes: typeof handler.serve = (snapshot, request) => handler.serve(snapshot, request);
const snapshot = queueSnapshot();
const at = (seconds: number) => snapshot.fetchedAt + seconds * 1000;
const request = { method: 'GET', now: at(2.5), maxAgeSeconds: 300, nextPollDueAt: at(5) };

describe('GET /api/v2/getOutMsgQueueSizes', () => {
  it("answers in toncenter's v2 format, to the letter", () => {
    const response = serveQueueSizes(snapshot, request);
    expect(response.status).toBe(200);
    const body = JSON.parse(bodyText(response));
    expect(Object.keys(body)).toEqual(['ok', 'result']);
    expect(body.ok).toBe(true);
    expect(Object.keys(body.result)).toEqual(['@type', 'shards', 'ext_msg_queue_size_limit', '@extra']);
    expect(body.result['@type']).toBe('blocks.outMsgQueueSizes');
    expect(body.result.ext_msg_queue_size_limit).toBe(8000);
    expect(body.result['@extra']).toBe('1755815024.462:toncenter:snapshot');
    expect(body.result.shards).toHaveLength(3);
    for (const entry of body.result.shards) {
      expect(Object.keys(entry)).toEqual(['@type', 'id', 'size']);
      expect(entry['@type']).toBe('blocks.outMsgQueueSize');
      expect(Object.keys(entry.id)).toEqual(['@type', 'workchain', 'shard', 'seqno', 'root_hash', 'file_hash']);
      expect(entry.id['@type']).toBe('chain.blockIdExt');
      expect(typeof entry.id.workchain).toBe('number');
      expect(entry.id.shard).toMatch(/^-?\d+$/);
      expect(Number.isInteger(entry.size)).toBe(true);
    }
    expect(body.result.shards[0].id).toEqual({
      '@type': 'chain.blockIdExt',
      workchain: -1,
      shard: '-9223372036854775808',
      seqno: 51149550,
      root_hash: 'aa5DrbypWLx+3hICy5IOusAsMB8LA+JY41tjUtlYVhQ=',
      file_hash: 'aa5DrbypWLx+3hICy5IOusAsMB8LA+JY41tjUtlYVhQ=',
    });
  });

  it('sends the caching headers', () => {
    const { headers } = serveQueueSizes(snapshot, request);
    expect(headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'last-modified': new Date(snapshot.fetchedAt).toUTCString(),
      age: '2',
      'cache-control': 'max-age=3',
    });
  });

  it('serves the same pre-serialised bytes for the same snapshot', () => {
    expect(serveQueueSizes(snapshot, request).body).toBe(serveQueueSizes(snapshot, { ...request, now: at(4) }).body);
  });

  it('answers 503 with Retry-After before the first snapshot', () => {
    const response = serveQueueSizes(null, request);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('3');
    expect(JSON.parse(bodyText(response))).toEqual({ ok: false, error: expect.stringMatching(/no queue-size snapshot/) as unknown, code: 503 });
  });

  it('answers 503 once the snapshot is older than maxAgeSeconds', () => {
    expect(serveQueueSizes(snapshot, { ...request, now: at(300) }).status).toBe(200);
    const stale = serveQueueSizes(snapshot, { ...request, now: at(301) });
    expect(stale.status).toBe(503);
    expect(JSON.parse(bodyText(stale))).toMatchObject({ ok: false, code: 503, error: expect.stringMatching(/older than snapshot.maxAgeSeconds/) as unknown });
  });

  it("answers POST as GET, as toncenter's C++ server takes it", () => {
    const response = serveQueueSizes(snapshot, { ...request, method: 'POST' });
    expect(response.status).toBe(200);
    expect(bodyText(response)).toBe(bodyText(serveQueueSizes(snapshot, request)));
  });

  it.each(['PUT', 'DELETE', 'PATCH'])('answers %s with 405 in the envelope', (method) => {
    const response = serveQueueSizes(snapshot, { ...request, method });
    expect(response.status).toBe(405);
    expect(response.headers['allow']).toBe('GET, HEAD, POST');
    expect(JSON.parse(bodyText(response))).toMatchObject({ ok: false, code: 405 });
  });
});
