import { mkdirSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, findTool, startTonwatch, type RunningProcess } from '../helpers/process.js';

/**
 * The status page in a real browser: Debian's chromium driven by playwright-core (no
 * browser download), against the real daemon and simulator processes on 127.0.0.1. The
 * simulator moves only when stepped (--block-ms 0), so the page can be compared with
 * /metrics exactly. A screenshot is written to test-artifacts/status-page.png.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = join(ROOT, 'test-artifacts');
const CRITICAL_FILL = 'rgb(198, 40, 40)';

describe('status page in Debian chromium', () => {
  const chromiumBin = findTool('chromium');
  let sim: RunningProcess;
  let simUrl: string;
  let daemon: RunningProcess;
  let url: string;
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const consoleErrors: string[] = [];
  const watched: { raw: string; name: string }[] = [];

  beforeAll(async () => {
    if (!chromiumBin) return;
    const dir = await mkdtemp(join(tmpdir(), 'tonwatch-browser-'));
    sim = startTonwatch(['simulate', '--port', '0', '--block-ms', '0', '--seed', '7']);
    simUrl = (await sim.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    const accounts = (await (await fetch(`${simUrl}/_sim/accounts`)).json()) as { raw: string; kind: string }[];
    for (const [i, a] of accounts.slice(0, 6).entries()) watched.push({ raw: a.raw, name: `browser-${a.kind}-${i}` });
    await writeFile(
      join(dir, 'tonwatch.yml'),
      `listen: { host: 127.0.0.1, port: 0 }
upstreams: [ { name: sim, url: "${simUrl}", rps: 50, timeoutMs: 2000 } ]
schedule: { queueSizes: "* * * * * *", wallets: "*/2 * * * * *" }
snapshot: { file: ./snapshot.json, maxAgeSeconds: 60 }
watchlist:
${watched.map((w) => `  - { address: "${w.raw}", name: ${w.name}, minBalanceTons: 1000000 }`).join('\n')}
`,
    );
    daemon = startTonwatch(['--config', join(dir, 'tonwatch.yml')]);
    url = (await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1] ?? '';
    await eventually(async () => ((await fetch(`${url}/readyz`)).status === 200 ? true : undefined), 20_000, 'the daemon ready');

    browser = await chromium.launch({
      executablePath: chromiumBin,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    await page.goto(`${url}/?refresh=1`);
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await daemon?.stop('SIGKILL');
    await sim?.stop('SIGKILL');
  });

  /** Shard → size as the page shows it now. */
  const pageShards = async (): Promise<Record<string, number>> =>
    Object.fromEntries(
      await page.$$eval('tr.shard', (rows) =>
        rows.map((row) => [row.getAttribute('data-shard') ?? '', Number(row.getAttribute('data-size'))] as [string, number]),
      ),
    );

  /** Shard → size as /metrics says it now. */
  const metricShards = async (): Promise<Record<string, number>> => {
    const text = await (await fetch(`${url}/metrics`)).text();
    return Object.fromEntries(
      [...text.matchAll(/^ton_out_msg_queue_size\{workchain="(-?\d+)",shard="([0-9A-F]{16})"\} (\d+)$/gm)].map((m) => [`${m[1]}:${m[2]}`, Number(m[3])]),
    );
  };

  it('shows every current shard with the numbers /metrics has, and an hour chart with points', async (ctx) => {
    if (!chromiumBin) return ctx.skip("chromium not installed (CI installs Debian's chromium package)");
    const expected = await metricShards();
    expect(Object.keys(expected).length).toBeGreaterThanOrEqual(3);
    await eventually(async () => (JSON.stringify(await pageShards()) === JSON.stringify(expected) ? true : undefined), 10_000, 'the page showing /metrics');
    // Each poll adds a point, and the page redraws the chart from /api/status.
    await eventually(
      async () =>
        (await page.$$eval('svg.chart polyline', (lines) => lines.map((l) => Number(l.getAttribute('data-points'))))).every((n) => n >= 3) ? true : undefined,
      15_000,
      'history points',
    );
    expect(await page.$$eval('svg.chart polyline', (lines) => lines.length)).toBe(Object.keys(expected).length);
  });

  it('finds a watched wallet by its user-friendly form', async (ctx) => {
    if (!chromiumBin) return ctx.skip("chromium not installed (CI installs Debian's chromium package)");
    const target = watched[3] ?? { raw: '', name: '' };
    const states = (await (await fetch(`${url}/api/v3/walletStates?address=${target.raw}`)).json()) as {
      address_book: Record<string, { user_friendly: string }>;
    };
    const friendly = states.address_book[target.raw]?.user_friendly ?? '';
    expect(friendly).toMatch(/^[A-Za-z0-9_-]{48}$/);
    await page.fill('#wallet-query', friendly);
    await page.press('#wallet-query', 'Enter');
    await eventually(
      async () => {
        const names = await page.$$eval('table.wallets tbody tr td:first-child', (cells) => cells.map((c) => c.textContent));
        return names.length === 1 && names[0] === target.name ? true : undefined;
      },
      10_000,
      'the search result',
    );
    expect(await page.textContent('p.result-count')).toBe(`1 match “${friendly}”`);
    // Back to the full list: those below their (huge) threshold first.
    await page.fill('#wallet-query', '');
    await page.press('#wallet-query', 'Enter');
    await eventually(async () => ((await page.$$('table.wallets tbody tr')).length === watched.length ? true : undefined), 10_000, 'the full list');
  });

  it('changes the bars when a shard splits, and turns a surging shard critical within a few polls', async (ctx) => {
    if (!chromiumBin) return ctx.skip("chromium not installed (CI installs Debian's chromium package)");
    const before = Object.keys(await pageShards());
    // Surge starts with four basechain shards: the two become four.
    await fetch(`${simUrl}/_sim/scenario?name=surge`);
    await fetch(`${simUrl}/_sim/step?n=1`);
    await eventually(async () => (Object.keys(await pageShards()).length === before.length + 2 ? true : undefined), 10_000, 'the split shards on the page');
    // The surging shard climbs past 80 % of the limit as blocks come.
    for (let i = 0; i < 20; i += 1) await fetch(`${simUrl}/_sim/step?n=5`);
    const critical = await page.waitForSelector('tr.shard.level-critical rect.fill', { timeout: 15_000 });
    expect(await critical.evaluate((rect) => getComputedStyle(rect).fill)).toBe(CRITICAL_FILL);
    expect(await page.textContent('#section-summary')).toMatch(/Highest pressure: \d+ %/);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'status-page.png'), fullPage: true });
  });

  it('reads without JavaScript, and fits a phone screen with the keyboard working', async (ctx) => {
    if (!chromiumBin) return ctx.skip("chromium not installed (CI installs Debian's chromium package)");
    const plain = await browser.newPage({ javaScriptEnabled: false, viewport: { width: 390, height: 844 }, isMobile: true });
    try {
      await plain.goto(`${url}/`);
      expect(Object.keys(await metricShards())).toEqual(await plain.$$eval('tr.shard', (rows) => rows.map((r) => r.getAttribute('data-shard'))));
      // Nothing wider than the screen: wide tables scroll inside their own box.
      expect(await plain.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // The search form works by keyboard alone, and without JavaScript (a plain GET).
      const target = watched[1] ?? { raw: '', name: '' };
      await plain.focus('#wallet-query');
      await plain.keyboard.type(target.name);
      await plain.keyboard.press('Enter');
      await plain.waitForURL(/q=/);
      expect(await plain.$$eval('table.wallets tbody tr td:first-child', (cells) => cells.map((c) => c.textContent))).toEqual([target.name]);
    } finally {
      await plain.close();
    }
  });

  it('sent no request outside its own origin, and logged no console error', (ctx) => {
    if (!chromiumBin) return ctx.skip("chromium not installed (CI installs Debian's chromium package)");
    expect(requests.length).toBeGreaterThan(5);
    expect(requests.filter((r) => !r.startsWith(`${url}/`))).toEqual([]);
    expect(consoleErrors).toEqual([]);
  });
});
