import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { WatchedKeys, WatchedWallet } from '../domain/config.js';
import type { SnapshotStore } from '../snapshot/store.js';
import type { QueueSizesSnapshot, WalletRecord } from '../snapshot/types.js';
import type { ClusterKeys } from './keys.js';
import { isNewer, mergeWallets } from '../features/wallets/merge.js';
import { decodeQueueSizes, decodeRecords, encodeQueueSizes, encodeRecord } from './wire.js';

/** Records per stream entry and per HSET. */
const RECORDS_PER_ENTRY = 1000;
/**
 * Stream entries kept (approximately): two wallet cycles' worth of entries, at least 512.
 * A reader further behind than that loads the whole state again, which a replica short of
 * CPU (it decodes every other replica's records) must not be pushed into every cycle.
 */
const streamEntries = (watchlist: number): number => Math.max(512, 2 * Math.ceil(watchlist / RECORDS_PER_ENTRY));
/**
 * Received records wait at least this long to be applied together (one new snapshot for
 * many entries), and at least ten times as long as the last application took: a new
 * snapshot copies the map of every wallet held (a million entries take ~100 ms), so
 * applying costs at most a tenth of the replica's time however large the watchlist.
 */
const APPLY_AFTER_MS = 250;
const APPLY_SHARE = 10;

export interface ShareDeps {
  readonly main: Redis;
  /** A connection of its own: XREAD BLOCK holds it. */
  readonly reader: Redis;
  readonly keys: ClusterKeys;
  readonly self: string;
  /** Told apart from an earlier run of the same member id. */
  readonly incarnation: string;
  readonly logger: Logger;
  readonly wallOffset: () => number;
  readonly store: SnapshotStore;
  readonly watchlist: () => readonly WatchedWallet[];
  readonly watched: () => WatchedKeys;
}

export interface Share {
  wallets(records: Iterable<WalletRecord>): void;
  queueSizes(queueSizes: QueueSizesSnapshot): void;
  /** Load everything again at the next read (after a reconnect). */
  resync(): void;
  /** Reads the stream until stopped. */
  run(): Promise<void>;
  stop(): void;
}

/**
 * One snapshot for every replica: what a replica polls goes to a Redis hash (the current
 * state, one field per wallet, and one key for the queue sizes) and, in the same
 * transaction, to a stream (the changes, an entry per thousand records). Every replica
 * reads the stream and applies what is newer than what it holds. A replica that starts or
 * reconnects notes the stream's last entry, loads the whole hash, then reads the stream
 * from that entry: nothing published in between is missed. Entries carry each
 * publisher's sequence number; a gap (the stream was trimmed past a slow reader) means
 * loading everything again.
 */
export function createShare(deps: ShareDeps): Share {
  const { main, reader, keys, logger } = deps;
  const toProcess = (wall: number): number => wall - deps.wallOffset();
  const outbox = new Map<string, WalletRecord>();
  let sending = false;
  let seq = 0;
  let stopped = false;
  let needResync = true;
  let lastId = '$';
  const seen = new Map<string, number>();
  const pending = new Map<string, WalletRecord>();
  let applyTimer: NodeJS.Timeout | undefined;
  let applyMs = 0;

  const apply = (): void => {
    clearTimeout(applyTimer);
    applyTimer = undefined;
    if (pending.size === 0) return;
    const started = performance.now();
    const next = mergeWallets(deps.store.current().wallets, pending, deps.watchlist(), isNewer);
    pending.clear();
    if (next !== null) deps.store.replaceWallets(next);
    applyMs = performance.now() - started;
  };
  const received = (records: readonly WalletRecord[]): void => {
    const watched = deps.watched();
    for (const record of records) {
      if (!watched.has(record.raw)) continue;
      if (isNewer(record, pending.get(record.raw))) pending.set(record.raw, record);
    }
    applyTimer ??= setTimeout(apply, Math.max(APPLY_AFTER_MS, applyMs * APPLY_SHARE));
  };

  async function send(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      while (outbox.size > 0 && !stopped) {
        const chunk: string[] = [];
        const fields: string[] = [];
        for (const [raw, record] of outbox) {
          outbox.delete(raw);
          const line = encodeRecord(record, deps.wallOffset());
          chunk.push(line);
          fields.push(raw, line);
          if (chunk.length === RECORDS_PER_ENTRY) break;
        }
        // Numbered as built: a failed transaction leaves a gap, and readers load everything again.
        const entry = ['k', 'w', 'f', deps.self, 'i', deps.incarnation, 's', String(++seq), 'd', chunk.join('\n')];
        const done = await main
          .multi()
          .hset(keys.wallets, ...fields)
          .xadd(keys.updates, 'MAXLEN', '~', streamEntries(deps.watchlist().length), '*', ...entry)
          .exec();
        if (done === null || done.some(([err]) => err !== null)) throw new Error('the transaction failed');
        // Let served requests in between entries.
        await sleep(0);
      }
    } catch (err) {
      logger.debug({ err }, 'could not share wallet records; they are shared again once Redis answers');
      outbox.clear();
      throw err;
    } finally {
      sending = false;
    }
  }

  function handle(fields: string[]): void {
    const entry: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
    const from = `${entry['f']}/${entry['i']}`;
    const s = Number(entry['s']);
    const before = seen.get(from);
    // Read again after a read timed out: applied already.
    if (before !== undefined && s <= before) return;
    // Entries missing in between (trimmed before this replica read them): load everything.
    if (before !== undefined && s > before + 1) needResync = true;
    seen.set(from, s);
    if (entry['f'] === deps.self && entry['i'] === deps.incarnation) return;
    if (entry['k'] === 'w') received(decodeRecords((entry['d'] ?? '').split('\n'), toProcess).records);
    else if (entry['k'] === 'q') queueReceived(entry['d'] ?? '');
  }

  function queueReceived(text: string): void {
    const queueSizes = decodeQueueSizes(text, toProcess);
    const held = deps.store.current().queueSizes;
    if (queueSizes !== null && (held === null || queueSizes.fetchedAt > held.fetchedAt)) deps.store.replaceQueueSizes(queueSizes);
  }

  async function loadAll(): Promise<void> {
    const started = performance.now();
    const last = await reader.xrevrange(keys.updates, '+', '-', 'COUNT', 1);
    lastId = last[0]?.[0] ?? '0-0';
    seen.clear();
    const queue = await reader.get(keys.queue);
    if (queue !== null) queueReceived(queue);
    let cursor = '0';
    let records = 0;
    do {
      const [next, flat] = await reader.hscan(keys.wallets, cursor, 'COUNT', 1000);
      cursor = next;
      const lines = flat.filter((_, i) => i % 2 === 1);
      const decoded = decodeRecords(lines, toProcess).records;
      records += decoded.length;
      received(decoded);
      await setImmediate();
    } while (cursor !== '0' && !stopped);
    apply();
    logger.info({ records, seconds: (performance.now() - started) / 1000 }, "loaded the cluster's snapshot from Redis");
  }

  return {
    wallets(records) {
      for (const record of records) outbox.set(record.raw, record);
      send().catch(() => undefined);
    },
    queueSizes(queueSizes) {
      const text = encodeQueueSizes(queueSizes, deps.wallOffset());
      const entry = ['k', 'q', 'f', deps.self, 'i', deps.incarnation, 's', String(++seq), 'd', text];
      main
        .multi()
        .set(keys.queue, text)
        .xadd(keys.updates, 'MAXLEN', '~', streamEntries(deps.watchlist().length), '*', ...entry)
        .exec()
        .catch((err: unknown) => logger.debug({ err }, 'could not share the queue sizes'));
    },
    resync() {
      needResync = true;
    },
    async run() {
      while (!stopped) {
        try {
          if (needResync) {
            // Loaded whole, or tried again at the next turn.
            await loadAll();
            needResync = false;
          }
          const answer = await reader.xread('COUNT', 64, 'BLOCK', 1000, 'STREAMS', keys.updates, lastId);
          for (const [, entries] of answer ?? []) {
            for (const [id, fields] of entries) {
              lastId = id;
              handle(fields);
              // A thousand records decoded: let served requests and timers in.
              await setImmediate();
            }
          }
        } catch (err) {
          if (stopped) break;
          // A read that timed out is read again from the same entry; a lost connection
          // loads everything again when it is back (the runtime's 'ready': resync()).
          logger.debug({ err }, 'reading the cluster stream failed; reading on from the last entry');
          await sleep(500);
        }
      }
    },
    stop() {
      stopped = true;
      apply();
    },
  };
}
