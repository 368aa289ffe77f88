import { afterEach, describe, expect, it } from 'vitest';
import { startSim, type RunningSim } from '../helpers/sim.js';

describe('simulator HTTP face', () => {
  let running: RunningSim | undefined;
  afterEach(async () => {
    await running?.stop();
  });

  const get = async (path: string) => {
    try {
      const response = await fetch(`${running?.url}${path}`, { signal: AbortSignal.timeout(2000) });
      return { status: response.status, text: await response.text() };
    } catch {
      return { status: 0, text: '' };
    }
  };

  it('flaky fails a share of requests in many different ways', async () => {
    running = await startSim({ scenario: 'flaky', hangMs: 100, seed: 3 });
    const statuses: number[] = [];
    for (let i = 0; i < 120; i += 1) statuses.push((await get('/api/v2/getOutMsgQueueSizes')).status);
    const failed = statuses.filter((s) => s !== 200).length;
    expect(failed).toBeGreaterThan(120 * 0.2);
    expect(failed).toBeLessThan(120 * 0.5);
    const stats = running.sim.http.stats();
    const kinds = Object.keys(stats).filter((k) => k !== '200');
    expect(kinds.length).toBeGreaterThanOrEqual(6);
  }, 30_000);

  it("answers over its rps with toncenter's 429 bodies, in both forms", async () => {
    running = await startSim({ rps: 2 });
    const bodies = [];
    for (let i = 0; i < 10; i += 1) bodies.push(await get('/api/v2/getOutMsgQueueSizes'));
    const limited = bodies.filter((b) => b.status === 429).map((b) => JSON.parse(b.text) as Record<string, unknown>);
    expect(limited.length).toBeGreaterThanOrEqual(6);
    expect(limited).toContainEqual({ ok: false, code: 429, error: 'Ratelimit exceeded' });
    expect(limited).toContainEqual({ ok: false, result: 'Ratelimit exceed', code: 429 });
  });

  it.each([
    ['python', 200, 404],
    ['cpp', 404, 200],
    ['both', 200, 200],
  ] as const)('style %s answers the plural path %i and the singular %i', async (style, plural, singular) => {
    running = await startSim({ style });
    expect((await get('/api/v2/getOutMsgQueueSizes')).status).toBe(plural);
    expect((await get('/api/v2/getOutMsgQueueSize')).status).toBe(singular);
    if (style === 'cpp')
      expect(JSON.parse((await get('/api/v2/getOutMsgQueueSizes')).text)).toEqual({ ok: false, error: 'Not Found', code: 404, '@extra': '_' });
  });

  it('walletStates: 422 without an address, and accounts it does not know left out', async () => {
    running = await startSim({ accounts: 5 });
    expect(await get('/api/v3/walletStates')).toEqual({ status: 422, text: '{"error":"address of account is required"}' });
    const known = running.sim.wallets.accounts()[0]!.raw;
    const body = JSON.parse((await get(`/api/v3/walletStates?address=${known.toLowerCase()}&address=0:${'9'.repeat(64)}`)).text);
    expect(body.wallets.map((w: { address: string }) => w.address)).toEqual([known]);
    expect(Object.keys(body.address_book)).toEqual([known]);
  });
});
