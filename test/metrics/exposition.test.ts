import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createMetricsExposition, type MetricsBody } from '../../src/metrics/exposition.js';
import { createSelfMetrics } from '../../src/metrics/registry.js';
import { createWalletSeriesRenderer } from '../../src/features/wallets/series.js';
import { renderQueueSeries } from '../../src/features/queue-sizes/series.js';
import type { QueueSizesSnapshot } from '../../src/features/queue-sizes/types.js';
import type { WalletsSnapshot } from '../../src/features/wallets/types.js';
import { rawAddress } from '../helpers/addresses.js';
import { queueSnapshot } from '../helpers/fixtures.js';
import { record, walletState, walletsSnapshot, watched } from '../helpers/wallets.js';
import { healthStub } from '../helpers/health.js';

/** The /metrics body: pre-rendered blocks, each compressed once per change. */

const NOW = 1_000_500;

interface Snapshot {
  readonly queueSizes: QueueSizesSnapshot;
  readonly wallets: WalletsSnapshot;
}

/** The exposition of the two blocks the queue sizes and wallets features declare: text, and parts kept compressed. */
function exposition(watchlist: ReturnType<typeof watched>[], snapshot: () => Snapshot) {
  const self = createSelfMetrics({
    version: 't',
    nodeVersion: 'v20',
    defaultMetrics: false,
    health: healthStub({ watchlistSize: () => watchlist.length }),
  });
  const wallets = createWalletSeriesRenderer({ watchlist: () => watchlist, maxAgeSeconds: () => 300, testnet: () => false });
  let queue = { snapshot: null as QueueSizesSnapshot | null, text: Buffer.alloc(0) };
  return createMetricsExposition({
    self,
    now: () => NOW,
    blocks: () => [
      {
        kind: 'text',
        text: () => {
          const { queueSizes } = snapshot();
          if (queue.snapshot !== queueSizes) queue = { snapshot: queueSizes, text: Buffer.from(renderQueueSeries(queueSizes)) };
          return queue.text;
        },
      },
      { kind: 'gzip', parts: (at) => wallets.render(snapshot().wallets, at) },
    ],
  });
}

/** The members of a gzip body. */
function members(body: MetricsBody): readonly Buffer[] {
  if (body.encoding !== 'gzip') throw new Error('not a gzip body');
  return body.parts;
}

/** The bytes of an identity body, read as the server would send them. */
async function identityText(body: MetricsBody): Promise<string> {
  if (body.encoding !== 'identity') throw new Error('not an identity body');
  const parts: Buffer[] = [];
  for await (const part of body.stream()) parts.push(part);
  const text = Buffer.concat(parts);
  expect(text.length).toBe(body.length);
  return text.toString();
}

describe('metrics exposition', () => {
  // 2,500 wallets: three blocks of up to 1,000.
  const raws = Array.from({ length: 2500 }, (_, i) => rawAddress(i + 1));
  const watchlist = raws.map((raw) => watched(raw));
  // One poll of the queue sizes: its block is the same text throughout.
  const queueSizes = { ...queueSnapshot(), fetchedAt: NOW };
  const snapshotWith = (balanceOf: (i: number) => string): Snapshot => ({
    queueSizes,
    wallets: walletsSnapshot(
      raws.map((raw, i) => record(raw, walletState(raw, { balance: balanceOf(i) }), NOW)),
      NOW,
    ),
  });

  it('sends each unchanged block as the very same gzip member, and compresses again only the block that changed', async () => {
    let snapshot = snapshotWith(() => '1000000000');
    const metrics = exposition(watchlist, () => snapshot);
    const first = members(await metrics.render(true));
    const again = members(await metrics.render(true));
    // All but the last part (the self metrics, compressed per scrape) are the same objects.
    expect(again.slice(0, -1)).toHaveLength(first.length - 1);
    again.slice(0, -1).forEach((part, i) => expect(part).toBe(first[i]));

    // One wallet of the second block changes its balance: only that block's balance member is new.
    snapshot = snapshotWith((i) => (i === 1500 ? '2000000000' : '1000000000'));
    const changed = members(await metrics.render(true));
    const fresh = changed.slice(0, -1).filter((part) => !first.includes(part));
    expect(fresh).toHaveLength(1);
    expect(gunzipSync(fresh[0] as Buffer).toString()).toContain(`ton_wallet_balance_tons{address="${raws[1500]}",name="${raws[1500]?.slice(0, 6)}"} 2\n`);
  });

  it('decodes to the identity text, as one gzip stream', async () => {
    const snapshot = snapshotWith((i) => String(1_000_000_000 + i));
    const metrics = exposition(watchlist, () => snapshot);
    const identity = await identityText(await metrics.render(false));
    const gzip = members(await metrics.render(true));
    const text = gunzipSync(Buffer.concat(gzip)).toString();
    const chain = (body: string) => body.slice(0, body.indexOf('# HELP tonwatch_'));
    expect(chain(text)).toBe(chain(identity));
    expect(
      chain(text)
        .split('\n')
        .filter((l) => l.startsWith('ton_wallet_balance_tons')),
    ).toHaveLength(2500);
    // Well compressed: at most a third of the identity size.
    expect(Buffer.concat(gzip).length).toBeLessThan(identity.length / 3);
  });
});
