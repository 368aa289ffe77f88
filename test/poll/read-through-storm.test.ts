import { Agent, fetch as undiciFetch } from 'undici';
import { describe, expect, it } from 'vitest';
import { startReadThroughDaemon } from '../helpers/read-through-daemon.js';
import { stoppedAfterEach } from '../helpers/sim.js';

/**
 * Read-through under a storm, as an operator met it: the upstream at 2 rps behind an 8 KiB
 * request-line limit, 20 watched wallets, 200 clients asking within one second for 10
 * unwatched addresses each out of 500, about 490 distinct. Batches start at what fits in 8 KiB, so the
 * storm pays no budget for 414 probes; addresses are fetched in the order they arrived.
 */

describe('read-through under a storm', () => {
  const running = stoppedAfterEach();

  it.each([1, 2, 3, 4, 5])(
    'run %i: at least 190 of 200 clients answered 200 within timeoutMs, at most one 414, the first clients first',
    async (run) => {
      const s = await running.sim({ accounts: 520, rps: 2, maxUrlBytes: 8192, seed: 40 + run });
      const accounts = s.sim.wallets.accounts().map((a) => a.raw);
      const watched = accounts.slice(0, 20);
      const pool = accounts.slice(20, 520);
      const url = await startReadThroughDaemon((daemon) => running.track(daemon), {
        simUrl: s.url,
        rps: 2,
        timeoutMs: 10000,
        schedule: '{ queueSizes: "*/5 * * * * *", wallets: "*/30 * * * * *" }',
        readThrough: '{ enabled: true, ttlSeconds: 60 }',
        watched,
        logLevel: 'warn',
      });
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      let seed = 777 + run;
      const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const asks = Array.from({ length: 200 }, () => {
        const picked = new Set<string>();
        while (picked.size < 10) picked.add(pool[Math.floor(random() * pool.length)] ?? '');
        return [...picked];
      });
      const distinct = new Set(asks.flat()).size;
      expect(distinct).toBeGreaterThan(450);
      const agent = new Agent({ connections: 256 });
      const started = Date.now();
      const answers = await Promise.all(
        asks.map(async (addresses, i) => {
          await new Promise((r) => setTimeout(r, (i * 1000) / 200));
          const response = await undiciFetch(`${url}/api/v3/walletStates?address=${addresses.join(',')}`, { dispatcher: agent });
          await response.arrayBuffer();
          return { status: response.status, at: Date.now() - started };
        }),
      );
      await agent.close();
      const ok = answers.filter((a) => a.status === 200);
      const refusedAsTooLong = s.sim.http.stats()['414'] ?? 0;
      const quarter = (from: number) => answers.slice(from, from + 50).reduce((sum, a) => sum + a.at, 0) / 50;
      console.log(
        `storm ${run}: ${ok.length}/200 answered 200, ${distinct} distinct addresses, ${refusedAsTooLong} 414s, ` +
          `last answer at ${Math.max(...answers.map((a) => a.at))} ms; mean answer time of clients 1-50 ${quarter(0).toFixed(0)} ms, 151-200 ${quarter(150).toFixed(0)} ms`,
      );
      expect(ok.length).toBeGreaterThanOrEqual(190);
      expect(refusedAsTooLong).toBeLessThanOrEqual(1);
      expect(Math.max(...ok.map((a) => a.at))).toBeLessThan(11_000);
      // In the order they arrived: the first clients are answered before the last, not all at the end.
      expect(quarter(0)).toBeLessThan(quarter(150));
      expect(s.sim.http.stats()['429'] ?? 0).toBe(0);
    },
    60_000,
  );
});
