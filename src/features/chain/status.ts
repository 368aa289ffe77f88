import { jettonUnits } from '../../domain/jettons.js';
import { escapeHtml, thousands } from '../../serve/html.js';
import { unsignedShardToHex } from '../../ton/shard.js';
import type { StatusSection } from '../provisions.js';
import type { WatchedValidator } from './config.js';
import { SET_NAMES, type HeadsSnapshot, type ValidatorsSnapshot } from './types.js';
import { watchedKey } from './watched.js';

/** The chain feature's part of /api/status. */
export interface ChainStatus {
  readonly chain: {
    /** Every chain's newest block known, and how old it is now. */
    readonly heads: readonly ChainHeadStatus[] | null;
    readonly sets: Readonly<
      Record<string, { readonly validators: number; readonly main: number; readonly since: number; readonly until: number } | null>
    > | null;
    readonly election: { readonly id: number; readonly closesAt: number; readonly participants: number; readonly totalStakeTons: string } | null;
    readonly watched: readonly WatchedStatus[];
  };
}

export interface ChainHeadStatus {
  readonly chain: string;
  readonly seqno: number;
  readonly genUtime: number;
  readonly ageSeconds: number;
}

export interface WatchedStatus {
  readonly name: string;
  readonly inCurrent: boolean;
  /** null while there is no next set. */
  readonly inNext: boolean | null;
  /** null while no election is open. */
  readonly electionStakeTons: string | null;
  readonly frozenStakeTons: string;
  readonly complaints: number;
}

const tons = (nanotons: bigint): string => jettonUnits(nanotons.toString(), 9);

export function chainStatusOf(heads: HeadsSnapshot | null, v: ValidatorsSnapshot | null, watched: readonly WatchedValidator[], wallNow: number): ChainStatus {
  const headsOut =
    heads?.blocks.map((b) => ({
      chain: b.workchain === -1 ? 'masterchain' : `${b.workchain}:${unsignedShardToHex(b.shard)}`,
      seqno: b.seqno,
      genUtime: b.genUtime,
      ageSeconds: Math.max(0, Math.round(wallNow / 1000 - b.genUtime)),
    })) ?? null;
  if (v === null) return { chain: { heads: headsOut, sets: null, election: null, watched: [] } };
  const sets = Object.fromEntries(
    SET_NAMES.map((name) => {
      const set = v.sets[name];
      return [name, set === null ? null : { validators: set.total, main: set.main, since: set.since, until: set.until }];
    }),
  );
  const { election } = v;
  return {
    chain: {
      heads: headsOut,
      sets,
      election:
        election === null
          ? null
          : { id: election.id, closesAt: election.closesAt, participants: election.participants.length, totalStakeTons: tons(election.totalStake) },
      watched: watched.map((w) => {
        const key = watchedKey(v, w);
        const inSet = (name: 'current' | 'next') => v.sets[name]?.validators.some((d) => d.publicKey === key) ?? false;
        const frozen = v.past.reduce((sum, p) => sum + (key === null ? 0n : (p.frozen.get(key)?.stake ?? 0n)), 0n);
        return {
          name: w.name,
          inCurrent: inSet('current'),
          inNext: v.sets.next === null ? null : inSet('next'),
          electionStakeTons: election === null ? null : tons(election.participants.find((p) => p.publicKey === key)?.stake ?? 0n),
          frozenStakeTons: tons(frozen),
          complaints: v.past.reduce((n, p) => n + p.complaints.filter((against) => against === key).length, 0),
        };
      }),
    },
  };
}

const date = (unix: number): string =>
  new Date(unix * 1000)
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, ' UTC');
const yesNo = (value: boolean | null): string => (value === null ? '–' : value ? 'yes' : '<strong>no</strong>');

const headRow = (h: ChainHeadStatus): string =>
  `<tr><th scope="row">${escapeHtml(h.chain)}</th><td class="num">${thousands(h.seqno)}</td><td class="num">${h.ageSeconds} s ago</td></tr>`;

const watchedRow = (w: WatchedStatus): string =>
  `<tr${w.complaints > 0 || w.inNext === false ? ' class="attention"' : ''}><th scope="row">${escapeHtml(w.name)}</th>` +
  `<td>${yesNo(w.inCurrent)}</td><td>${yesNo(w.inNext)}</td><td class="num">${escapeHtml(w.electionStakeTons ?? '–')}</td>` +
  `<td class="num">${escapeHtml(w.frozenStakeTons)}</td><td class="num">${w.complaints}</td></tr>`;

const table = (caption: string, heads: readonly string[], rows: string): string =>
  `<div class="scroll"><table><caption>${caption}</caption><thead><tr>${heads.map((h) => `<th scope="col">${h}</th>`).join('')}</tr></thead>` +
  `<tbody>${rows}</tbody></table></div>`;

function renderChain({ chain }: ChainStatus): string {
  const heads =
    chain.heads === null ? '<p>No chain heads yet.</p>' : table("Every chain's newest block", ['chain', 'block', 'made'], chain.heads.map(headRow).join(''));
  if (chain.sets === null) return `${heads}<p>No validator data yet.</p>`;
  const sets = SET_NAMES.flatMap((name) => {
    const set = chain.sets?.[name];
    return set ? [`${name}: ${set.validators} validators (${set.main} on the masterchain), ${date(set.since)} to ${date(set.until)}`] : [];
  });
  const { election } = chain;
  const electionText =
    election === null
      ? 'No election open.'
      : `Election ${election.id} open until ${date(election.closesAt)}: ${election.participants} participants, ${election.totalStakeTons} TON staked.`;
  const watched =
    chain.watched.length === 0
      ? ''
      : table(
          'Watched validators',
          ['validator', 'current set', 'next set', 'election stake, TON', 'frozen, TON', 'complaints'],
          chain.watched.map(watchedRow).join(''),
        );
  return `${heads}<ul>${sets.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul><p>${escapeHtml(electionText)}</p>${watched}`;
}

/** The status page's section of the chain feature. */
export function chainSection(model: (wallNow: number) => ChainStatus, wallOffset: () => number): StatusSection {
  const status = (m: Readonly<Record<string, unknown>>): ChainStatus => m as unknown as ChainStatus;
  return {
    id: 'chain',
    title: 'Chain and validators',
    order: 25,
    anchor: 'chain',
    model: (now) => model(now + wallOffset()) as unknown as Readonly<Record<string, unknown>>,
    html: (m) => renderChain(status(m)),
    summary: (m) => {
      const masterchain = status(m).chain.heads?.find((h) => h.chain === 'masterchain');
      return masterchain === undefined ? [] : [[15, `Masterchain: block ${thousands(masterchain.seqno)}, ${masterchain.ageSeconds} s old`]];
    },
  };
}
