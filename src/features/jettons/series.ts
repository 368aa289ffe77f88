import type { WatchedWallet } from '../../domain/config.js';
import { jettonsOf } from './config.js';
import { decimalsOf, jettonUnits, type JettonSettings, type JettonsSnapshot } from '../../domain/jettons.js';
import { isFresh } from '../../snapshot/freshness.js';
import { JETTON_METRICS } from './families.js';
import type { MetricFamily } from '../../metrics/catalogue.js';
import { escapeLabelValue, familyHeader, formatValue } from '../../metrics/text-format.js';
import { compressSmall, EMPTY_PART, type Compressor, type GzipPart } from '../../metrics/gzip-members.js';
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { oneRenderAtATime } from '../../metrics/one-render-at-a-time.js';

/** What the jetton series are rendered from. */
export interface JettonSeriesInput {
  readonly snapshot: JettonsSnapshot | null;
  readonly jettons: readonly JettonSettings[];
  readonly watchJettons: readonly string[];
  readonly watchlist: readonly WatchedWallet[];
  readonly maxAgeSeconds: number;
}

/** Watched owners per block of lines, as the wallet series' blocks. */
const CHUNK_OWNERS = 1000;

/** The families written per watched owner, in the order of the text, each with its HELP and TYPE lines compressed. */
const OWNER_FAMILIES: readonly { readonly family: MetricFamily; readonly header: GzipPart }[] = [
  JETTON_METRICS.jettonBalance,
  JETTON_METRICS.jettonMinBalance,
].map((family) => ({ family, header: compressSmall(Buffer.from(familyHeader(family))) }));

/** One block's lines of one family: their gzip member, and the digest of the text it holds. */
interface KeptPart {
  readonly digest: string;
  readonly part: GzipPart;
}

const NO_LINES: KeptPart = { digest: '', part: EMPTY_PART };

interface Rendered {
  readonly input: JettonSeriesInput;
  readonly staleAt: number;
  /** Per block of CHUNK_OWNERS owners, per family of OWNER_FAMILIES. */
  readonly blocks: readonly (readonly KeptPart[])[];
  /** ton_jetton_info's text and member. */
  readonly info: { readonly text: string; readonly part: GzipPart };
  readonly parts: readonly GzipPart[];
}

/**
 * The jetton series as gzip members of exposition text: ton_jetton_balance for every
 * watched (wallet, jetton) whose record is fresh, ton_jetton_min_balance where configured,
 * and ton_jetton_info per configured jetton. The balance is written from the base-unit
 * string with the decimal point moved (jettonUnits): exact digits, never a float in
 * between. Kept only compressed, as the wallet series are (a line is ~130 bytes a watched
 * owner; its member a fifth of that), a member per thousand owners and family: rendered
 * again when the input changes or a record goes stale, one block at a time with the event
 * loop free in between, and a block compressed again only when its text differs (by its
 * digest). Renders run one after the other (oneRenderAtATime).
 */
export function createJettonSeriesRenderer(compressor: Compressor): (input: () => JettonSeriesInput, now: number) => Promise<readonly GzipPart[]> {
  let last: Rendered | null = null;
  const current = (input: JettonSeriesInput, now: number): readonly GzipPart[] | null =>
    last !== null && last.input === input && now < last.staleAt ? last.parts : null;

  const kept = async (before: KeptPart | undefined, text: string): Promise<KeptPart> => {
    if (text === '') return NO_LINES;
    const digest = createHash('sha256').update(text).digest('base64');
    return before?.digest === digest ? before : { digest, part: await compressor.part(Buffer.from(text)) };
  };

  const render = async (input: JettonSeriesInput, now: number): Promise<readonly GzipPart[]> => {
    const before = last?.blocks ?? [];
    const decimals = decimalsByJetton(input);
    const blocks: (readonly KeptPart[])[] = [];
    let staleAt = Infinity;
    for (let start = 0; start < input.watchlist.length; start += CHUNK_OWNERS) {
      const lines = blockLines(input, input.watchlist.slice(start, start + CHUNK_OWNERS), decimals, now);
      staleAt = Math.min(staleAt, lines.staleAt);
      const previous = before[blocks.length];
      blocks.push(await Promise.all(lines.texts.map((text, f) => kept(previous?.[f], text))));
      // A block's text is dropped before the next one is written, and scrapes of other series are answered in between.
      await nextTurn();
    }
    const parts: GzipPart[] = [];
    OWNER_FAMILIES.forEach(({ header }, f) => {
      const members = blocks.map((block) => block[f]?.part ?? EMPTY_PART).filter((part) => part.length > 0);
      if (members.length > 0) parts.push(header, ...members);
    });
    const text = infoLines(input, decimals);
    const info = last?.info.text === text ? last.info : { text, part: text === '' ? EMPTY_PART : compressSmall(Buffer.from(text)) };
    if (info.part.length > 0) parts.push(info.part);
    // A failed compression rejects before this: nothing is kept, and the next scrape renders and tries again.
    last = { input, staleAt, blocks, info, parts };
    return parts;
  };

  const rendered = oneRenderAtATime(current, render);
  return (read, now) => rendered(read(), now);
}

/** A jetton whose decimals are not known yet (to be read from its master) has no balance series until they are. */
function decimalsByJetton(input: JettonSeriesInput): ReadonlyMap<string, number | null> {
  return new Map(input.jettons.map((j) => [j.name, decimalsOf(j, input.snapshot)]));
}

function labelsOf(wallet: WatchedWallet, jetton: string): string {
  let out = `address="${wallet.raw}",name="${escapeLabelValue(wallet.name)}",jetton="${escapeLabelValue(jetton)}"`;
  for (const name of Object.keys(wallet.labels).sort()) out += `,${name}="${escapeLabelValue(wallet.labels[name] ?? '')}"`;
  return out;
}

/** One block of owners' lines, per family of OWNER_FAMILIES, and when the first of its balances turns stale. */
function blockLines(
  input: JettonSeriesInput,
  owners: readonly WatchedWallet[],
  decimals: ReadonlyMap<string, number | null>,
  now: number,
): { texts: [string, string]; staleAt: number } {
  if (input.jettons.length === 0) return { texts: ['', ''], staleAt: Infinity };
  let balances = '';
  let minimums = '';
  let staleAt = Infinity;
  for (const wallet of owners) {
    for (const jetton of jettonsOf(input, wallet)) {
      const labels = labelsOf(wallet, jetton);
      const min = wallet.minJettonBalance?.[jetton];
      if (min !== undefined) minimums += `${JETTON_METRICS.jettonMinBalance.name}{${labels}} ${formatValue(min)}\n`;
      const record = input.snapshot?.jettons.get(jetton)?.get(wallet.raw);
      const places = decimals.get(jetton) ?? null;
      if (record === undefined || places === null || !isFresh(record.fetchedAt, now, input.maxAgeSeconds)) continue;
      staleAt = Math.min(staleAt, record.fetchedAt + input.maxAgeSeconds * 1000);
      balances += `${JETTON_METRICS.jettonBalance.name}{${labels}} ${jettonUnits(record.balance, places)}\n`;
    }
  }
  return { texts: [balances, minimums], staleAt };
}

/** ton_jetton_info's header and lines: one per configured jetton whose decimals are known (nothing when none is). */
function infoLines(input: JettonSeriesInput, decimals: ReadonlyMap<string, number | null>): string {
  let out = '';
  for (const j of input.jettons) {
    const places = decimals.get(j.name) ?? null;
    if (places !== null) out += `${JETTON_METRICS.jettonInfo.name}{jetton="${escapeLabelValue(j.name)}",master="${j.master}",decimals="${places}"} 1\n`;
  }
  return out === '' ? '' : familyHeader(JETTON_METRICS.jettonInfo) + out;
}
