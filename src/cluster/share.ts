import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterKeys } from './keys.js';
import type { ChannelSpec } from './view.js';

/** Records per stream entry and per HSET. */
const RECORDS_PER_ENTRY = 1000;
/**
 * Stream entries kept (approximately): two cycles' worth of entries for every record the
 * channels hold, at least 512. A reader further behind than that loads the whole state
 * again, which a replica short of CPU (it decodes every other replica's records) must not
 * be pushed into every cycle.
 */
const streamEntries = (records: number): number => Math.max(512, 2 * Math.ceil(records / RECORDS_PER_ENTRY));

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
  /** How many records the channels hold in all (the watchlist's size): the stream is kept long enough for two rounds of them. */
  readonly records: () => number;
}

export interface Share {
  /** Adds a channel (before run()): its records go out through publish, and come in through its spec's receive. */
  channel<R>(name: string, spec: ChannelSpec<R>): { publish(records: Iterable<R>): void };
  /** Every channel's held records, published again (after a reconnect, or when the share changed). */
  publishHeld(): void;
  /** Load everything again at the next read (after a reconnect). */
  resync(): void;
  /** Reads the stream until stopped. */
  run(): Promise<void>;
  stop(): void;
}

/** Stream entry fields (one letter each: XADD takes flat pairs). */
const FIELD = {
  /** The channel's name. */
  channel: 'k',
  /** The publishing member. */
  from: 'f',
  /** Its incarnation (a restart is a new one). */
  incarnation: 'i',
  /** Its sequence number: a gap means entries were trimmed before this reader read them. */
  seq: 's',
  /** The records, a line each. */
  data: 'd',
} as const;

interface Channel {
  readonly spec: ChannelSpec<unknown>;
  readonly outbox: Map<string, unknown>;
}

/**
 * One snapshot for every replica: what a replica polls goes to a Redis hash per channel (the
 * current state, one field per record) and, in the same transaction, to a stream (the
 * changes, an entry per thousand records). Every replica reads the stream and hands what
 * others published to the channel's receiver. A replica that starts or reconnects notes the
 * stream's last entry, loads every channel's hash, then reads the stream from that entry:
 * nothing published in between is missed. Entries carry each publisher's sequence number; a
 * gap (the stream was trimmed past a slow reader) means loading everything again.
 */
export function createShare(deps: ShareDeps): Share {
  const { main, reader, keys, logger } = deps;
  const toProcess = (wall: number): number => wall - deps.wallOffset();
  const channels = new Map<string, Channel>();
  let sending = false;
  let seq = 0;
  let stopped = false;
  let needResync = true;
  let lastId = '$';
  const seen = new Map<string, number>();

  const decodeLines = (channel: Channel, lines: readonly string[]): unknown[] => {
    const records: unknown[] = [];
    for (const line of lines) {
      const record = channel.spec.decode(line, toProcess);
      if (record !== null) records.push(record);
    }
    return records;
  };

  /** The next entry of up to RECORDS_PER_ENTRY records of one channel, taken out of its outbox; null when every outbox is empty. */
  function nextEntry(): { name: string; fields: string[]; lines: string[] } | null {
    for (const [name, channel] of channels) {
      if (channel.outbox.size === 0) continue;
      const fields: string[] = [];
      const lines: string[] = [];
      for (const [key, record] of channel.outbox) {
        channel.outbox.delete(key);
        const line = channel.spec.encode(record, deps.wallOffset());
        lines.push(line);
        fields.push(key, line);
        if (lines.length === RECORDS_PER_ENTRY) break;
      }
      return { name, fields, lines };
    }
    return null;
  }

  async function send(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      for (let entry = nextEntry(); entry !== null && !stopped; entry = nextEntry()) {
        // Numbered as built: a failed transaction leaves a gap, and readers load everything again.
        const fields = [FIELD.channel, entry.name, FIELD.from, deps.self, FIELD.incarnation, deps.incarnation, FIELD.seq, String(++seq)];
        const done = await main
          .multi()
          .hset(keys.channel(entry.name), ...entry.fields)
          .xadd(keys.updates, 'MAXLEN', '~', streamEntries(deps.records()), '*', ...fields, FIELD.data, entry.lines.join('\n'))
          .exec();
        if (done === null || done.some(([err]) => err !== null)) throw new Error('the transaction failed');
        // Let served requests in between entries.
        await sleep(0);
      }
    } catch (err) {
      logger.debug({ err }, 'could not share records; they are shared again once Redis answers');
      for (const channel of channels.values()) channel.outbox.clear();
    } finally {
      sending = false;
    }
  }

  function handle(fields: string[]): void {
    const entry: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
    const from = `${entry[FIELD.from]}/${entry[FIELD.incarnation]}`;
    const s = Number(entry[FIELD.seq]);
    const before = seen.get(from);
    // Read again after a read timed out: applied already.
    if (before !== undefined && s <= before) return;
    // Entries missing in between (trimmed before this replica read them): load everything.
    if (before !== undefined && s > before + 1) needResync = true;
    seen.set(from, s);
    if (entry[FIELD.from] === deps.self && entry[FIELD.incarnation] === deps.incarnation) return;
    const channel = channels.get(entry[FIELD.channel] ?? '');
    if (channel !== undefined) channel.spec.receive(decodeLines(channel, (entry[FIELD.data] ?? '').split('\n')));
  }

  async function loadAll(): Promise<void> {
    const started = performance.now();
    const last = await reader.xrevrange(keys.updates, '+', '-', 'COUNT', 1);
    lastId = last[0]?.[0] ?? '0-0';
    seen.clear();
    let records = 0;
    for (const [name, channel] of channels) {
      let cursor = '0';
      do {
        const [next, flat] = await reader.hscan(keys.channel(name), cursor, 'COUNT', 1000);
        cursor = next;
        const decoded = decodeLines(
          channel,
          flat.filter((_, i) => i % 2 === 1),
        );
        records += decoded.length;
        channel.spec.receive(decoded);
        await setImmediate();
      } while (cursor !== '0' && !stopped);
    }
    logger.info({ records, seconds: (performance.now() - started) / 1000 }, "loaded the cluster's snapshot from Redis");
  }

  return {
    channel(name, spec) {
      const channel: Channel = { spec, outbox: new Map() };
      channels.set(name, channel);
      return {
        publish(records) {
          for (const record of records) channel.outbox.set(spec.keyOf(record), record);
          void send();
        },
      };
    },
    publishHeld() {
      for (const channel of channels.values()) for (const record of channel.spec.held()) channel.outbox.set(channel.spec.keyOf(record), record);
      void send();
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
    },
  };
}
