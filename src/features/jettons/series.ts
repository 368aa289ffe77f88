import type { WatchedWallet } from '../../domain/config.js';
import { jettonsOf } from './config.js';
import { decimalsOf, jettonUnits, type JettonSettings, type JettonsSnapshot } from '../../domain/jettons.js';
import { isFresh } from '../../snapshot/freshness.js';
import { JETTON_METRICS } from './families.js';
import { escapeLabelValue, familyHeader, formatValue } from '../../metrics/text-format.js';
import { EMPTY_PART, type Compressor, type GzipPart } from '../../metrics/gzip-members.js';
import { createHash } from 'node:crypto';

/** What the jetton series are rendered from. */
export interface JettonSeriesInput {
  readonly snapshot: JettonsSnapshot | null;
  readonly jettons: readonly JettonSettings[];
  readonly watchJettons: readonly string[];
  readonly watchlist: readonly WatchedWallet[];
  readonly maxAgeSeconds: number;
}

/**
 * The jetton series as one gzip block of exposition text: ton_jetton_balance for every
 * watched (wallet, jetton) whose record is fresh, ton_jetton_min_balance where configured,
 * and ton_jetton_info per configured jetton. The balance is written from the base-unit
 * string with the decimal point moved (jettonUnits): exact digits, never a float in
 * between. Kept only compressed, as the wallet series are (a line is ~130 bytes a watched
 * owner; its member a fifth of that): rendered again when the input changes or a record
 * goes stale, and compressed again only when the text differs (by its digest).
 */
export function createJettonSeriesBlock(compressor: Compressor): (input: () => JettonSeriesInput, now: number) => Promise<readonly GzipPart[]> {
  const none = { input: null, staleAt: Infinity, digest: '', part: Promise.resolve(EMPTY_PART) };
  let last: { input: JettonSeriesInput | null; staleAt: number; digest: string; part: Promise<GzipPart> } = none;
  return async (read, now) => {
    const input = read();
    if (input !== last.input || now >= last.staleAt) {
      const { text, staleAt } = render(input, now);
      const digest = createHash('sha256').update(text).digest('base64');
      const part = digest === last.digest ? last.part : compressor.part(Buffer.from(text));
      // A failed compression is not kept: the next scrape renders and tries again.
      if (part !== last.part) part.catch(() => (last.part === part ? (last = none) : undefined));
      last = { input, staleAt, digest, part };
    }
    return [await last.part];
  };
}

function labelsOf(wallet: WatchedWallet, jetton: string): string {
  let out = `address="${wallet.raw}",name="${escapeLabelValue(wallet.name)}",jetton="${escapeLabelValue(jetton)}"`;
  for (const name of Object.keys(wallet.labels).sort()) out += `,${name}="${escapeLabelValue(wallet.labels[name] ?? '')}"`;
  return out;
}

function render(input: JettonSeriesInput, now: number): { text: string; staleAt: number } {
  if (input.jettons.length === 0) return { text: '', staleAt: Infinity };
  // A jetton whose decimals are not known yet (to be read from its master) has no balance series until they are.
  const decimals = new Map(input.jettons.map((j) => [j.name, decimalsOf(j, input.snapshot)]));
  const balances: string[] = [];
  const minimums: string[] = [];
  let staleAt = Infinity;
  for (const wallet of input.watchlist) {
    for (const jetton of jettonsOf(input, wallet)) {
      const labels = labelsOf(wallet, jetton);
      const min = wallet.minJettonBalance?.[jetton];
      if (min !== undefined) minimums.push(`${JETTON_METRICS.jettonMinBalance.name}{${labels}} ${formatValue(min)}\n`);
      const record = input.snapshot?.jettons.get(jetton)?.get(wallet.raw);
      const places = decimals.get(jetton) ?? null;
      if (record === undefined || places === null || !isFresh(record.fetchedAt, now, input.maxAgeSeconds)) continue;
      staleAt = Math.min(staleAt, record.fetchedAt + input.maxAgeSeconds * 1000);
      balances.push(`${JETTON_METRICS.jettonBalance.name}{${labels}} ${jettonUnits(record.balance, places)}\n`);
    }
  }
  let text = '';
  if (balances.length > 0) text += familyHeader(JETTON_METRICS.jettonBalance) + balances.join('');
  if (minimums.length > 0) text += familyHeader(JETTON_METRICS.jettonMinBalance) + minimums.join('');
  const infos = input.jettons.flatMap((j) => {
    const places = decimals.get(j.name) ?? null;
    return places === null ? [] : [`${JETTON_METRICS.jettonInfo.name}{jetton="${escapeLabelValue(j.name)}",master="${j.master}",decimals="${places}"} 1\n`];
  });
  if (infos.length > 0) text += familyHeader(JETTON_METRICS.jettonInfo) + infos.join('');
  return { text, staleAt };
}
