import { describe, expect, it } from 'vitest';
import { createClientQueues } from '../../src/features/read-through/client-queues.js';
import { shareOf } from '../../src/features/read-through/pending.js';
import type { ServedResponse } from '../../src/serve/response.js';
import { createWalletStatesHandler, type ReadThroughLookup } from '../../src/features/wallets/v3.js';
import { rawAddresses } from '../helpers/addresses.js';
import { bodyText } from '../helpers/response.js';
import { ADDR, record, walletState, walletsSnapshot } from '../helpers/wallets.js';

/** Read-through between clients: batches taken from each client's queue in turn, each client's share, and a refused request refused before it is parsed. */

describe('read-through queues, a queue per client address', () => {
  it('fills a batch from every waiting client in turn, the client a batch started with going last next time', () => {
    const queues = createClientQueues();
    for (let i = 0; i < 1000; i += 1) queues.add(`a${i}`, '10.0.0.1');
    for (let i = 0; i < 3; i += 1) queues.add(`b${i}`, '10.0.0.2');
    queues.add('c0', '10.0.0.3');
    // The backlog of thousands gets one address for each the others get.
    expect(queues.take(6)).toEqual(['a0', 'b0', 'c0', 'a1', 'b1', 'a2']);
    // 10.0.0.1 started that batch: 10.0.0.2 starts the next.
    expect(queues.take(3)).toEqual(['b2', 'a3', 'a4']);
    expect(queues.size).toBe(1000 - 5);
    // What a client holds counts until each address is settled, taken or not.
    expect(queues.held('10.0.0.1')).toBe(1000);
    expect(queues.holders()).toBe(3);
    for (let i = 0; i < 3; i += 1) queues.settled('10.0.0.2');
    queues.settled('10.0.0.3');
    expect(queues.holders()).toBe(1);
  });

  it('gives each client an equal share of maxPendingAddresses, less a reserve that the next client always finds', () => {
    // Alone: all but one full request's worth; beside others, an equal part of that.
    expect(shareOf(10_000, 0)).toBe(10_000 - 1024);
    expect(shareOf(10_000, 1)).toBe(Math.floor((10_000 - 1024) / 2));
    expect(shareOf(10_000, 19)).toBe(Math.floor((10_000 - 1024) / 20));
    // A small limit keeps a quarter in reserve, and every client may hold one at least.
    expect(shareOf(8, 0)).toBe(6);
    expect(shareOf(2, 5)).toBe(1);
  });
});

describe('a request read-through will refuse', () => {
  it('is refused at its first unwatched address, before the rest is parsed', () => {
    const watched = rawAddresses(3);
    const snapshot = walletsSnapshot(watched.map((raw) => record(raw, walletState(raw), 1_000_000)));
    let refusedAddresses = 0;
    const readThrough: ReadThroughLookup = {
      lookup: () => {
        throw new Error('a refused client is not looked up');
      },
      admits: (client) => client !== '198.51.100.9',
      refusal: (addresses) => {
        refusedAddresses = addresses;
        return { ok: false, status: 503, error: 'busy', retryAfterSeconds: 1 };
      },
    };
    const handler = createWalletStatesHandler();
    // Watched ones first, then an unwatched one, then a value that is no address at all: never reached.
    const query = `address=${[...watched, ADDR.a, 'not-an-address'].join(',')}`;
    const request = { method: 'GET', query, now: 1_000_500, maxAgeSeconds: 300, nextPollDueAt: null, testnet: false, watched: new Set(watched), readThrough };
    const answer = handler.serve(snapshot, { ...request, client: '198.51.100.9' }) as ServedResponse;
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(refusedAddresses).toBe(5);
    // Another client is parsed in full: the bad value is its problem.
    const other = handler.serve(snapshot, { ...request, client: '198.51.100.10' }) as ServedResponse;
    expect(other.status).toBe(422);
    expect(JSON.parse(bodyText(other))).toEqual({ error: expect.stringMatching(/invalid address not-an-address/) as unknown });
  });
});
