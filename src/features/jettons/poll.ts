import type { Logger } from 'pino';
import type { Config } from '../../domain/config.js';
import { jettonsOf } from './config.js';
import {
  decimalsOfMetadata,
  JETTON_PAGE_LIMIT,
  jettonsSnapshotFor,
  type JettonRecord,
  type JettonSettings,
  type JettonsSnapshot,
  type JettonWalletRow,
} from '../../domain/jettons.js';
import type { UpstreamClient } from '../../domain/upstream.js';
import { createBatchQueue, type BatchQueue, type BatchSize } from '../../accounts/batches.js';
import { createJettonPacker } from './packed-record.js';

export interface JettonPollDeps {
  readonly client: Pick<UpstreamClient, 'fetchJettonWallets' | 'fetchJettonMetadata'>;
  readonly logger: Logger;
  readonly config: Pick<Config, 'jettons' | 'watchJettons' | 'watchlist'>;
  /** Owners per request: learnt from 414/431 like walletStates batches (one per generation). */
  readonly batchSize: BatchSize;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Rows asked per page; the indexer allows at most 1000. */
  readonly pageLimit?: number | undefined;
  readonly previous: () => JettonsSnapshot | null;
  readonly publish: (snapshot: JettonsSnapshot) => void;
}

export type JettonPollOutcome = { readonly ok: true; readonly requests: number } | { readonly ok: false; readonly error: string };

/** The owners each watched jetton is polled for, in watchlist order. */
export function ownersByJetton(config: JettonPollDeps['config']): Map<JettonSettings, string[]> {
  const byName = new Map(config.jettons.map((j) => [j.name, j]));
  const owners = new Map<JettonSettings, string[]>();
  // No jetton configured: nothing to look for in a watchlist of maybe 100,000 wallets (each start asks).
  if (byName.size === 0) return owners;
  for (const wallet of config.watchlist) {
    for (const name of jettonsOf(config, wallet)) {
      const jetton = byName.get(name);
      if (jetton === undefined) continue;
      let list = owners.get(jetton);
      if (list === undefined) owners.set(jetton, (list = []));
      list.push(wallet.raw);
    }
  }
  return owners;
}

/** A jetton and one batch of its owners. */
interface JettonBatch {
  readonly jetton: JettonSettings;
  readonly owners: string[];
  readonly queue: BatchQueue;
}

/**
 * The batches of one cycle, jetton after jetton, each cut from its owners when it is handed
 * out (createBatchQueue: at the size in force, one batch at a time while the size is learnt).
 */
function batchesOf(watched: ReadonlyMap<JettonSettings, readonly string[]>, batchSize: BatchSize): () => Promise<JettonBatch | null> {
  const queues = Array.from(watched, ([jetton, owners]) => ({ jetton, queue: createBatchQueue(owners, batchSize) }));
  return async () => {
    for (;;) {
      // The first jetton with owners left: a refused batch goes back to its own jetton's queue.
      const current = queues.find(({ queue }) => queue.remaining() > 0);
      if (current === undefined) return null;
      const owners = await current.queue.next();
      if (owners !== null) return { ...current, owners };
    }
  };
}

/** The jetton wallets the snapshot holds, owner → wallet, per jetton when first asked: a liteserver need not ask the master for them again. */
function knownWalletsOf(previous: JettonsSnapshot | null): (jetton: JettonSettings) => ReadonlyMap<string, string> {
  const known = new Map<string, Map<string, string>>();
  return (jetton) => {
    let wallets = known.get(jetton.name);
    if (wallets === undefined) {
      wallets = new Map();
      for (const [owner, record] of previous?.jettons.get(jetton.name) ?? []) {
        const wallet = record.wallet;
        if (wallet !== null) wallets.set(owner, wallet);
      }
      known.set(jetton.name, wallets);
    }
    return wallets;
  };
}

/** A batch's rows as its owners' records; an owner without a row holds none of the jetton (balance 0, no wallet). */
function recordRows(
  records: Map<string, JettonRecord>,
  jetton: JettonSettings,
  owners: readonly string[],
  rows: readonly JettonWalletRow[],
  answered: { readonly fetchedAt: number; readonly upstream: string; readonly packed: (record: JettonRecord) => JettonRecord },
): void {
  const { fetchedAt, upstream, packed } = answered;
  const asked = new Set(owners);
  for (const row of rows) {
    if (row.jetton !== jetton.master || !asked.has(row.owner)) continue;
    const record = {
      wallet: row.address,
      balance: row.balance,
      lastTransactionLt: row.last_transaction_lt,
      codeHash: row.code_hash,
      dataHash: row.data_hash,
      fetchedAt,
      upstream,
    };
    records.set(row.owner, packed(record));
  }
  for (const owner of owners) {
    if (!records.has(owner))
      records.set(owner, packed({ wallet: null, balance: '0', lastTransactionLt: null, codeHash: null, dataHash: null, fetchedAt, upstream }));
  }
}

/** Decimals the config leaves out, read from the masters' metadata once (kept in the snapshot). */
async function readDecimals(
  deps: JettonPollDeps,
  jettons: Iterable<JettonSettings>,
  previous: JettonsSnapshot | null,
  signal: AbortSignal | undefined,
): Promise<{ decimals: Map<string, number>; requests: number; failure: string | null }> {
  const decimals = new Map(previous?.decimals ?? []);
  let requests = 0;
  let failure: string | null = null;
  for (const jetton of jettons) {
    if (jetton.decimals !== null || decimals.has(jetton.master)) continue;
    requests += 1;
    const metadata = await deps.client.fetchJettonMetadata(jetton.master, signal);
    const read = metadata.ok ? decimalsOfMetadata(metadata.value.value) : { ok: false as const, reason: metadata.error.message };
    if (read.ok) {
      decimals.set(jetton.master, read.decimals);
      deps.logger.info({ jetton: jetton.name, master: jetton.master, decimals: read.decimals }, "read the jetton's decimals from its master's metadata");
    } else failure ??= `${jetton.name}: cannot read its decimals (${read.reason}); its balances are not exported until it has them`;
  }
  return { decimals, requests, failure };
}

/**
 * One jetton cycle: for each watched jetton, its owners in batches (one master and many
 * `owner_address` a request: the indexer refuses several masters with several owners),
 * each batch paged with `limit`/`offset` until a page comes back short. An owner the
 * answer has no row for holds none of that jetton: its record says balance 0 and no
 * wallet. A 414/431 makes the batch smaller (as for walletStates) and the owners are asked
 * again; any other failure keeps the owners' previous records, and the cycle says it
 * failed. What was fetched is published either way.
 */
export async function pollJettons(deps: JettonPollDeps, signal?: AbortSignal): Promise<JettonPollOutcome> {
  const pageLimit = Math.min(deps.pageLimit ?? JETTON_PAGE_LIMIT, JETTON_PAGE_LIMIT);
  // Records of a name whose master changed are another token's: neither kept nor used.
  const previous = jettonsSnapshotFor(deps.previous(), deps.config.jettons);
  // Worked out once a cycle: it walks the whole watchlist.
  const watched = ownersByJetton(deps.config);
  const fetched = new Map(Array.from(watched.keys(), (jetton) => [jetton.name, new Map<string, JettonRecord>()]));
  const nextBatch = batchesOf(watched, deps.batchSize);
  let requests = 0;
  let failure: string | null = null;
  const knownWallets = knownWalletsOf(previous);
  const packed = createJettonPacker();

  const runBatch = async ({ jetton, owners, queue }: JettonBatch): Promise<void> => {
    const rows: JettonWalletRow[] = [];
    let upstream = '';
    let fetchedAt = 0;
    for (let offset = 0; ; offset += pageLimit) {
      requests += 1;
      const page = await deps.client
        .fetchJettonWallets(owners, jetton.master, { limit: pageLimit, offset }, signal, knownWallets(jetton))
        .catch((error: unknown) => {
          if (offset === 0) deps.batchSize.untried(owners.length);
          throw error;
        });
      if (!page.ok) {
        if (page.error.code === 'uri_too_long' && offset === 0 && owners.length > 1) {
          deps.batchSize.refused(owners.length);
          queue.putBack(owners);
          return;
        }
        if (offset === 0) deps.batchSize.untried(owners.length);
        failure ??= `${jetton.name}: ${page.error.message}`;
        return;
      }
      if (offset === 0) deps.batchSize.accepted(owners.length);
      ({ upstream, fetchedAt } = page.value);
      rows.push(...page.value.value.jetton_wallets);
      if (page.value.value.jetton_wallets.length < pageLimit) break;
    }
    recordRows(fetched.get(jetton.name) as Map<string, JettonRecord>, jetton, owners, rows, { fetchedAt, upstream, packed });
  };

  const worker = async (): Promise<void> => {
    for (let next = await nextBatch(); next !== null; next = await nextBatch()) {
      if (signal?.aborted) {
        // Cut while the cycle was being stopped: not asked.
        deps.batchSize.untried(next.owners.length);
        return;
      }
      await runBatch(next);
    }
  };
  const read = await readDecimals(deps, watched.keys(), previous, signal);
  const decimals = read.decimals;
  requests += read.requests;
  failure ??= read.failure;
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, worker));
  if (signal?.aborted) return { ok: false, error: 'aborted' };
  const masters = new Map(deps.config.jettons.map((j) => [j.name, j.master]));
  deps.publish({ ...merged(watched, fetched, previous), decimals, masters });
  return failure === null ? { ok: true, requests } : { ok: false, error: failure };
}

/** This cycle's records over the previous ones, for the jettons and owners watched now, in watchlist order. */
function merged(
  watched: ReadonlyMap<JettonSettings, readonly string[]>,
  fetched: ReadonlyMap<string, ReadonlyMap<string, JettonRecord>>,
  previous: JettonsSnapshot | null,
): JettonsSnapshot {
  const jettons = new Map<string, Map<string, JettonRecord>>();
  let newest = previous?.fetchedAt ?? 0;
  for (const [jetton, owners] of watched) {
    const records = new Map<string, JettonRecord>();
    const now = fetched.get(jetton.name);
    const before = previous?.jettons.get(jetton.name);
    for (const owner of owners) {
      const record = now?.get(owner) ?? before?.get(owner);
      if (record === undefined) continue;
      records.set(owner, record);
      newest = Math.max(newest, record.fetchedAt);
    }
    jettons.set(jetton.name, records);
  }
  return { jettons, fetchedAt: newest };
}
