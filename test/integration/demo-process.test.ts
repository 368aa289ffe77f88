import { describe, expect, it } from 'vitest';
import { eventually, startTonwatch } from '../helpers/process.js';

/** `tonwatch demo`, as `npm run demo` runs it: simulator and daemon in one process. */
describe('tonwatch demo', () => {
  it('prints its URLs, serves moving queue metrics and the demo watchlist, and stops cleanly', async () => {
    const demo = startTonwatch(['demo', '--port', '0']);
    try {
      const [, url] = await demo.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/\s+status page/);
      await demo.waitFor(/\/_sim\/state/);
      const seqnoOf = async () => {
        const metrics = await (await fetch(`${url}/metrics`)).text();
        return /ton_shard_block_seqno\{workchain="-1",shard="8000000000000000"\} (\d+)/.exec(metrics)?.[1];
      };
      const first = await eventually(seqnoOf, 15_000, 'queue metrics');
      // Blocks every second, polls every two: the numbers move.
      await eventually(async () => ((await seqnoOf()) !== first ? true : undefined), 15_000, 'moving queue metrics');
      const v2 = await fetch(`${url}/api/v2/getOutMsgQueueSizes`);
      expect(v2.status).toBe(200);
      const metrics = await eventually(
        async () => {
          const text = await (await fetch(`${url}/metrics`)).text();
          return text.includes('ton_wallet_balance_tons') ? text : undefined;
        },
        20_000,
        'wallet metrics',
      );
      expect(metrics).toMatch(/ton_wallet_status\{[^}]*name="demo-unknown"[^}]*status="unknown"\} 1/);
      expect(metrics).toContain('tonwatch_watchlist_size 13');
      // The status page the demo points to, with the demo's wallets on it.
      const page = await (await fetch(`${url}/`)).text();
      expect(page).toContain('13 watched');
      expect(page).toContain('demo-unknown');
    } finally {
      const { code, ms } = await demo.stop('SIGINT');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
  }, 60_000);
});

describe('tonwatch demo --liteserver', () => {
  it('polls the simulated liteserver: moving queue metrics and wallet states come from it, and it stops cleanly', async () => {
    const demo = startTonwatch(['demo', '--port', '0', '--liteserver']);
    try {
      await demo.waitFor(/polled through its liteserver at 127\.0\.0\.1:\d+/);
      const [, url] = await demo.waitFor(/(http:\/\/127\.0\.0\.1:\d+)\/\s+status page/);
      const metricsText = async () => (await fetch(`${url}/metrics`)).text();
      const seqnoOf = async () => /ton_shard_block_seqno\{workchain="-1",shard="8000000000000000"\} (\d+)/.exec(await metricsText())?.[1];
      const first = await eventually(seqnoOf, 15_000, 'queue metrics');
      await eventually(async () => ((await seqnoOf()) !== first ? true : undefined), 15_000, 'moving queue metrics');
      const v2 = (await (await fetch(`${url}/api/v2/getOutMsgQueueSizes`)).json()) as { result: { '@extra': string } };
      expect(v2.result['@extra']).toMatch(/:simulator-lite:snapshot$/);
      const metrics = await eventually(
        async () => {
          const text = await metricsText();
          return /upstream="simulator-lite",query="wallets",code="ok"/.test(text) && text.includes('ton_wallet_balance_tons') ? text : undefined;
        },
        20_000,
        'wallet states from the liteserver',
      );
      expect(metrics).toMatch(/ton_wallet_seqno\{[^}]*name="demo-v4r2-0"[^}]*\} \d+/);
      const v3 = (await (await fetch(`${url}/api/v3/walletStates?address=0:A4EE8C4948887C0BCC03A800A3D4AADC706E9DC332338ECCF3F72B08AF4CB560`)).json()) as {
        wallets: { wallet_type: string; code_hash: string }[];
      };
      expect(v3.wallets[0]).toMatchObject({ wallet_type: 'wallet v4 r2', code_hash: '/rX/aCDi/w2Ug+fg1iyBfYRniftK5YDIeIZtlZ2r1cA=' });
    } finally {
      const { code, ms } = await demo.stop('SIGINT');
      expect(code).toBe(0);
      expect(ms).toBeLessThan(10_000);
    }
  }, 60_000);
});

describe('tonwatch simulate --liteserver-port', () => {
  it('prints the liteserver address, its public key and a config line that works', async () => {
    const sim = startTonwatch(['simulate', '--port', '0', '--liteserver-port', '0', '--liteserver-without-queue-sizes', '--seed', '3']);
    try {
      const [, port, key] = await sim.waitFor(/liteserver on 127\.0\.0\.1:(\d+), public key (\S+)/);
      await sim.waitFor(/upstreams: \[\{ name: sim-lite, kind: liteserver/);
      const [, url] = await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
      const state = (await (await fetch(`${url}/_sim/liteserver`)).json()) as { publicKey: string };
      expect(state.publicKey).toBe(key);
      expect(Number(port)).toBeGreaterThan(0);
    } finally {
      expect((await sim.stop('SIGTERM')).code).toBe(0);
    }
  }, 30_000);
});
