import { mkdtemp, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TonClient } from '@ton/ton';
import type { HttpProvider } from 'tonweb/dist/types/providers/http-provider.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { omissionProblems, openApiProblems } from '../helpers/indexer-schema.js';
import { eventually, ready, startDaemonProcess, startSimProcess, type RunningProcess } from '../helpers/process.js';

/**
 * The real TON client libraries against the real daemon process on the real simulator
 * process: tonweb and @ton/ton post JSON-RPC to /api/v2/jsonRPC exactly as they post to
 * toncenter; walletStates answers validate against the indexer's published OpenAPI.
 */

// tonweb is CommonJS (`module.exports = TonWeb`) while its typings declare an ES default export.
const TonWeb = createRequire(import.meta.url)('tonweb') as { HttpProvider: typeof HttpProvider };

const GHOST = `0:${'EE'.repeat(32)}`;

/** What @ton/ton's HttpApi needs of a codec: zod's safeParse (it parses `result` itself). */
const queueSizesResult = z.object({
  '@type': z.literal('blocks.outMsgQueueSizes'),
  shards: z.array(z.object({ '@type': z.literal('blocks.outMsgQueueSize'), size: z.number(), id: z.object({ seqno: z.number() }).loose() })),
  ext_msg_queue_size_limit: z.number(),
});

/**
 * TonClient has no method for getOutMsgQueueSizes. Every TonClient method posts through its
 * HttpApi's `doCall(method, params, codec)` (private in the typings); a user adding the
 * call subclasses it like this. What it takes of the server: HTTP 200, `ok: true`, and a
 * `result` its codec accepts.
 */
class QueueSizesClient extends TonClient {
  getOutMsgQueueSizes(): Promise<z.output<typeof queueSizesResult>> {
    const http = this.api as unknown as { doCall(method: string, params: object, codec: typeof queueSizesResult): Promise<z.output<typeof queueSizesResult>> };
    return http.doCall('getOutMsgQueueSizes', {}, queueSizesResult);
  }
}

describe('TON client libraries against the tonwatch process', () => {
  let sim: RunningProcess;
  let daemon: RunningProcess;
  let url: string;
  let accounts: { raw: string; kind: string; balance: string }[];

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-clients-'));
    let simUrl: string;
    ({ proc: sim, url: simUrl } = await startSimProcess(['--block-ms', '0', '--accounts', '40', '--seed', '5']));
    accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as typeof accounts;
    await writeFile(join(dir, 'watch.txt'), `${accounts.map((a, i) => `${a.raw},w${i}`).join('\n')}\n${GHOST},ghost\n`);
    ({ proc: daemon, url } = await startDaemonProcess(
      dir,
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 2000 } ]
schedule: { queueSizes: "* * * * * *", wallets: "*/2 * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
watchlistFiles: [ ./watch.txt ]
`,
    ));
    await ready(url);
  });

  afterAll(async () => {
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  /** The GET answer's result, asked right after (same snapshot unless a poll lands between: retried). */
  const sameSnapshot = async <T>(call: () => Promise<T>): Promise<{ got: T; expected: unknown }> =>
    eventually(
      async () => {
        const before = ((await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as { result: unknown }).result;
        const got = await call();
        const after = ((await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as { result: unknown }).result;
        return JSON.stringify(before) === JSON.stringify(after) ? { got, expected: before } : undefined;
      },
      10_000,
      'two GETs around the call on one snapshot',
    );

  it("tonweb's HttpProvider.send('getOutMsgQueueSizes', {}) gets the GET's result, the key in X-API-Key or in ?api_key=", async () => {
    const withHeader = new TonWeb.HttpProvider(`${url}/api/v2/jsonRPC`, { apiKey: 'any-key' });
    const viaHeader = await sameSnapshot(() => withHeader.send('getOutMsgQueueSizes', {}));
    expect(viaHeader.got).toEqual(viaHeader.expected);
    const withQuery = new TonWeb.HttpProvider(`${url}/api/v2/jsonRPC?api_key=any-key`);
    const viaQuery = await sameSnapshot(() => withQuery.send('getOutMsgQueueSize', {}));
    expect(viaQuery.got).toEqual(viaQuery.expected);
  });

  it('tonweb rejects with the error of a method tonwatch does not serve', async () => {
    const provider = new TonWeb.HttpProvider(`${url}/api/v2/jsonRPC`);
    await expect(provider.send('getAddressBalance', { address: accounts[0]?.raw })).rejects.toBe('Unknown method');
  });

  it("@ton/ton's TonClient (its HttpApi) gets the GET's result and fails cleanly on a method tonwatch does not serve", async () => {
    const client = new QueueSizesClient({ endpoint: `${url}/api/v2/jsonRPC`, apiKey: 'any-key' });
    const { got, expected } = await sameSnapshot(() => client.getOutMsgQueueSizes());
    expect(got).toEqual(queueSizesResult.parse(expected));
    expect(got.shards.length).toBeGreaterThanOrEqual(2);
    // Its HTTP layer (axios) refuses the 422 before @ton/ton reads the body, as with toncenter.
    await expect(client.getMasterchainInfo()).rejects.toThrow(/status code 422/);
  });

  it("serves walletStates for every kind of account as the indexer's OpenAPI describes it, leaving out what the indexer leaves out", async () => {
    const query = [...accounts.map((a) => a.raw), GHOST].map((a) => `address=${encodeURIComponent(a)}`).join('&');
    const answer = (await (await fetch(`${url}/api/v3/walletStates?${query}`)).json()) as { wallets: Record<string, unknown>[] };
    expect(openApiProblems(answer)).toEqual([]);
    expect(new Set(accounts.map((a) => a.kind))).toEqual(new Set(['v3r2', 'v4r2', 'v5r1', 'uninit', 'frozen', 'contract', 'nonexist']));
    const byAddress = new Map(answer.wallets.map((w) => [w['address'], w]));
    // The ghost is unknown to the upstream: left out, as the indexer does.
    expect(byAddress.has(GHOST)).toBe(false);
    expect(byAddress.size).toBe(accounts.length);
    for (const wallet of answer.wallets) expect(omissionProblems(wallet), String(wallet['address'])).toEqual([]);
    const keysOf = (kind: string) => Object.keys(byAddress.get(accounts.find((a) => a.kind === kind)?.raw) ?? {}).sort();
    const last = ['last_transaction_hash', 'last_transaction_lt'];
    const walletKeys = ['address', 'balance', 'code_hash', 'is_wallet', 'seqno', 'status', 'wallet_id', 'wallet_type', ...last];
    expect(keysOf('v4r2').filter((k) => k !== 'extra_currencies')).toEqual(walletKeys.sort());
    expect(keysOf('v5r1').filter((k) => k !== 'extra_currencies')).toEqual([...walletKeys, 'is_signature_allowed'].sort());
    expect(keysOf('uninit').filter((k) => k !== 'extra_currencies')).toEqual(['address', 'balance', 'is_wallet', 'status', ...last].sort());
    expect(keysOf('contract').filter((k) => k !== 'extra_currencies')).toEqual(['address', 'balance', 'code_hash', 'is_wallet', 'status', ...last].sort());
    const nonexist = byAddress.get(accounts.find((a) => a.kind === 'nonexist')?.raw);
    expect(nonexist).toEqual({
      address: expect.any(String) as unknown,
      is_wallet: false,
      status: 'nonexist',
      last_transaction_hash: null,
      last_transaction_lt: null,
    });
  });
});
