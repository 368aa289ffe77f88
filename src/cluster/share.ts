import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { createOutbox, FIELD, MARKERS_PER_ENTRY, markerMember, type OutboxDeps } from './share-out.js';
import type { Channel, ChannelSpec } from './view.js';

export interface ShareDeps extends OutboxDeps {
  /** A connection of its own: XREAD BLOCK holds it. */
  readonly reader: Redis;
}

export interface Share {
  /** Adds a channel (before run()): its records go out through publish, and come in through its spec's receive. */
  channel<R>(name: string, spec: ChannelSpec<R>): Channel<R>;
  /** Every channel's held records, published again (after a reconnect, or when the share changed). */
  publishHeld(): void;
  /** Load everything again at the next read (after a reconnect). */
  resync(): void;
  /** Removes the markers of members not in `members` from every channel's marker hash (the leader does it when the members change). */
  pruneMarkers(members: readonly string[]): Promise<void>;
  /** Reads the stream until stopped. */
  run(): Promise<void>;
  stop(): void;
}

/** Fields per HSCAN or HMGET. */
const PER_READ = 1000;

const decodeLines = (spec: ChannelSpec<unknown>, toProcess: (wall: number) => number, lines: readonly (string | null)[]): unknown[] => {
  const records: unknown[] = [];
  for (const line of lines) {
    const record = line === null ? null : spec.decode(line, toProcess);
    if (record !== null) records.push(record);
  }
  return records;
};

/** A stream entry's flat field list as an object. */
function entryOf(fields: string[]): Record<string, string> {
  const entry: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i] as string] = fields[i + 1] as string;
  return entry;
}

interface Reading {
  /** Each publisher's (member/incarnation) last sequence number applied. */
  readonly seen: Map<string, number>;
  readonly channels: ReadonlyMap<string, ChannelSpec<unknown>>;
  readonly self: string;
  readonly incarnation: string;
  readonly toProcess: (wall: number) => number;
}

/**
 * Hands one stream entry to its channel's receivers, unless it was applied already or is this
 * replica's own; 'gap' when entries of its publisher are missing before it (trimmed before
 * this reader read them): everything has to be loaded again.
 */
function applyEntry(entry: Record<string, string>, r: Reading): 'ok' | 'gap' {
  const member = entry[FIELD.from] ?? '';
  const from = `${member}/${entry[FIELD.incarnation]}`;
  const s = Number(entry[FIELD.seq]);
  const before = r.seen.get(from);
  // Read again after a read timed out: applied already.
  if (before !== undefined && s <= before) return 'ok';
  r.seen.set(from, s);
  const gap = before !== undefined && s > before + 1 ? 'gap' : 'ok';
  if (member === r.self && entry[FIELD.incarnation] === r.incarnation) return gap;
  const spec = r.channels.get(entry[FIELD.channel] ?? '');
  if (spec === undefined) return gap;
  const data = entry[FIELD.data];
  if (data !== undefined) spec.receive(decodeLines(spec, r.toProcess, data.split('\n')));
  const markers = entry[FIELD.markers];
  if (markers !== undefined) spec.receiveMarkers?.(markers.split('\n'), member);
  return gap;
}

/** Every field of a hash, a thousand at a time. */
async function* scan(reader: Redis, key: string, stopped: () => boolean): AsyncGenerator<string[]> {
  let cursor = '0';
  do {
    const [next, flat] = await reader.hscan(key, cursor, 'COUNT', PER_READ);
    cursor = next;
    yield flat;
    await setImmediate();
  } while (cursor !== '0' && !stopped());
}

/** Every channel's hash into its receivers, then the other members' markers; resolves with the records read. */
async function loadChannels(
  deps: ShareDeps,
  channels: ReadonlyMap<string, ChannelSpec<unknown>>,
  toProcess: (wall: number) => number,
  stopped: () => boolean,
): Promise<number> {
  let records = 0;
  for (const [name, spec] of channels) {
    for await (const flat of scan(deps.reader, deps.keys.channel(name), stopped)) {
      const decoded = decodeLines(
        spec,
        toProcess,
        flat.filter((_, i) => i % 2 === 1),
      );
      records += decoded.length;
      spec.receive(decoded);
    }
    if (spec.receiveMarkers === undefined) continue;
    const byMember = new Map<string, string[]>();
    for await (const flat of scan(deps.reader, deps.keys.markers(name), stopped)) {
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const member = markerMember(flat[i] as string);
        if (member === deps.self) continue;
        const lines = byMember.get(member) ?? [];
        lines.push(flat[i + 1] as string);
        byMember.set(member, lines);
      }
    }
    for (const [member, lines] of byMember) {
      for (let i = 0; i < lines.length && !stopped(); i += MARKERS_PER_ENTRY) {
        spec.receiveMarkers(lines.slice(i, i + MARKERS_PER_ENTRY), member);
        await setImmediate();
      }
    }
  }
  return records;
}

/** The records of `wanted` keys from a channel's hash into its receivers, a thousand at a time; on a failure, left to the next resync. */
async function loadRecords(
  deps: ShareDeps,
  spec: ChannelSpec<unknown>,
  name: string,
  wanted: readonly string[],
  toProcess: (wall: number) => number,
  stopped: () => boolean,
): Promise<void> {
  try {
    for (let i = 0; i < wanted.length && !stopped(); i += PER_READ) {
      spec.receive(decodeLines(spec, toProcess, await deps.main.hmget(deps.keys.channel(name), ...wanted.slice(i, i + PER_READ))));
      await setImmediate();
    }
  } catch (err) {
    // Loaded whole at the next resync; until then the records come with their next change.
    deps.logger.debug({ err }, 'could not read records from the shared hash');
  }
}

/** Removes the fields of members not in `members` from every channel's marker hash; on a failure, left to the next change of members. */
async function pruneMarkers(
  deps: ShareDeps,
  channels: ReadonlyMap<string, ChannelSpec<unknown>>,
  members: readonly string[],
  stopped: () => boolean,
): Promise<void> {
  const alive = new Set(members);
  try {
    for (const [name, spec] of channels) {
      if (spec.receiveMarkers === undefined) continue;
      // On the command connection: the reader's is held by blocking stream reads.
      for await (const flat of scan(deps.main, deps.keys.markers(name), stopped)) {
        const gone = flat.filter((field, i) => i % 2 === 0 && !alive.has(markerMember(field)));
        if (gone.length > 0) await deps.main.hdel(deps.keys.markers(name), ...gone);
      }
    }
  } catch (err) {
    deps.logger.debug({ err }, "could not remove departed members' markers");
  }
}

/**
 * One snapshot for every replica: what a replica polls goes to a Redis hash per channel (the
 * current state, one field per record) and, in the same transaction, to a stream (an entry
 * per thousand records); markers (what a publisher says of records it did not send again)
 * go to the stream and a marker hash (share-out.ts). Every replica reads the stream and
 * hands what others published to the channel's receivers, in the order published. A
 * replica that starts or reconnects notes the stream's last entry, loads every channel's
 * hash and then its markers, then reads the stream from that entry: nothing published in
 * between is missed. Entries carry each publisher's sequence number; a gap (the stream was
 * trimmed past a slow reader) means loading everything again.
 */
export function createShare(deps: ShareDeps): Share {
  const { reader, keys, logger } = deps;
  const toProcess = (wall: number): number => wall - deps.wallOffset();
  const channels = new Map<string, ChannelSpec<unknown>>();
  const outbox = createOutbox(deps);
  let stopped = false;
  let needResync = true;
  let lastId = '$';
  const seen = new Map<string, number>();

  const handle = (fields: string[]): void => {
    if (applyEntry(entryOf(fields), { seen, channels, self: deps.self, incarnation: deps.incarnation, toProcess }) === 'gap') needResync = true;
  };

  async function loadAll(): Promise<void> {
    const started = performance.now();
    const last = await reader.xrevrange(keys.updates, '+', '-', 'COUNT', 1);
    lastId = last[0]?.[0] ?? '0-0';
    seen.clear();
    const records = await loadChannels(deps, channels, toProcess, () => stopped);
    logger.info({ records, seconds: (performance.now() - started) / 1000 }, "loaded the cluster's snapshot from Redis");
  }

  return {
    channel<R>(name: string, spec: ChannelSpec<R>): Channel<R> {
      const general = spec as ChannelSpec<unknown>;
      channels.set(name, general);
      outbox.channel(name, general);
      return {
        publish: (records, markers) => outbox.publish(name, records, markers),
        forget: (gone) => outbox.forget(name, gone),
        load: (wanted) => void loadRecords(deps, general, name, wanted, toProcess, () => stopped),
      };
    },
    publishHeld: () => outbox.publishHeld(),
    pruneMarkers: (members) => pruneMarkers(deps, channels, members, () => stopped),
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
      outbox.stop();
    },
  };
}
