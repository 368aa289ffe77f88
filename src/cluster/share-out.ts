import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ClusterKeys } from './keys.js';
import type { ChannelSpec, Marker } from './view.js';

/** Records (or keys to forget) per stream entry and per HSET or HDEL. */
const PER_ENTRY = 1000;
/**
 * Markers per stream entry and per HSET. A marker stands for many records (a thousand
 * wallets), and a reader applies an entry in one task: an entry of a whole share's markers
 * (a quarter of a million wallets at a million over 4 replicas) held a reader's event loop
 * for seconds. Readers hand the markers loaded from the hash over in the same bounds (share.ts).
 */
export const MARKERS_PER_ENTRY = 16;
/**
 * Stream entries kept (approximately): two cycles' worth of entries for every record the
 * channels hold, at least 512. A reader further behind than that loads the whole state
 * again, which a replica short of CPU must not be pushed into every cycle.
 */
const streamEntries = (records: number): number => Math.max(512, 2 * Math.ceil(records / PER_ENTRY));
/**
 * Stream entries older than this (by Redis's clock: the time in the entry ids) are trimmed
 * too. Once the first cycles' records are shared, steady cycles write little more than
 * markers, an entry or two a cycle: trimmed by count alone, the full records of the first
 * cycle would stay in the stream for hours, as large as the hash. A reader further behind
 * than this loads the whole state again, as it does past the count.
 */
export const STREAM_WINDOW_MS = 10 * 60_000;

/** Stream entry fields (one letter each: XADD takes flat pairs). */
export const FIELD = {
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
  /** The markers, a line each. */
  markers: 'm',
} as const;

/** A marker's field in the channel's marker hash: the member, then the marker's own key. */
export const markerField = (member: string, key: string): string => `${member}|${key}`;
export const markerMember = (field: string): string => field.slice(0, field.lastIndexOf('|'));

export interface OutboxDeps {
  readonly main: Redis;
  readonly keys: ClusterKeys;
  readonly self: string;
  readonly incarnation: string;
  readonly logger: Logger;
  readonly wallOffset: () => number;
  /** How many records the channels hold in all: the stream is kept long enough for two rounds of them. */
  readonly records: () => number;
  /** Entries older than this are trimmed (default STREAM_WINDOW_MS; tests shorten it). */
  readonly streamWindowMs?: number;
}

/** What goes out of one channel, by key: the newest of each wins. */
interface Queued {
  readonly spec: ChannelSpec<unknown>;
  readonly records: Map<string, unknown>;
  /**
   * The held records still to go out after a publishHeld, drawn a write at a time: a
   * replica's whole share (a quarter of a million records) is not walked in one task.
   */
  held: Iterator<unknown> | null;
  readonly markers: Map<string, string>;
  readonly forget: Set<string>;
}

/** One write: a transaction's commands, built from a channel's queue. */
type Write = (multi: ReturnType<Redis['multi']>, entryFields: () => string[]) => void;

/** Up to `count` keys of a queue. */
function take(from: Map<string, unknown> | Set<string>, count = PER_ENTRY): string[] {
  const out: string[] = [];
  for (const key of from.keys()) {
    out.push(key);
    if (out.length === count) break;
  }
  return out;
}

/** XADD's arguments for an entry of `kind` (FIELD.data or FIELD.markers), trimming the stream as it goes. */
function streamArgs(deps: OutboxDeps, fields: string[], kind: string, lines: string[]): [string, 'MAXLEN', '~', number, '*', ...string[]] {
  return [deps.keys.updates, 'MAXLEN', '~', streamEntries(deps.records()), '*', ...fields, kind, lines.join('\n')];
}

/**
 * Up to `target.count` queued lines out of `queue`, as one write: each to `hashKey` under its
 * field, and all of them as one stream entry of `kind` (FIELD.data or FIELD.markers).
 */
function queuedWrite<V>(
  queue: Map<string, V>,
  deps: OutboxDeps,
  target: { hashKey: string; kind: string; count: number; field: (key: string) => string; line: (value: V) => string },
): Write {
  const fields: string[] = [];
  const lines: string[] = [];
  for (const key of take(queue, target.count)) {
    const line = target.line(queue.get(key) as V);
    queue.delete(key);
    lines.push(line);
    fields.push(target.field(key), line);
  }
  return (m, entry) => m.hset(target.hashKey, ...fields).xadd(...streamArgs(deps, entry(), target.kind, lines));
}

/** Tops the queued records up to a write's worth from the held ones still to go (a queued record is as new as the held one, or newer). */
function drawHeld(q: Queued): void {
  while (q.held !== null && q.records.size < PER_ENTRY) {
    const next = q.held.next();
    if (next.done === true) q.held = null;
    else if (!q.records.has(q.spec.keyOf(next.value))) q.records.set(q.spec.keyOf(next.value), next.value);
  }
}

/** The next write, taken out of its queue (records first, then markers, then keys to forget); null when every queue is empty. */
function nextWrite(queues: ReadonlyMap<string, Queued>, deps: OutboxDeps): { name: string; write: Write } | null {
  for (const [name, q] of queues) {
    drawHeld(q);
    if (q.records.size > 0) {
      const line = (record: unknown): string => q.spec.encode(record, deps.wallOffset());
      return { name, write: queuedWrite(q.records, deps, { hashKey: deps.keys.channel(name), kind: FIELD.data, count: PER_ENTRY, field: (key) => key, line }) };
    }
    if (q.markers.size > 0) {
      const field = (key: string): string => markerField(deps.self, key);
      return {
        name,
        write: queuedWrite(q.markers, deps, {
          hashKey: deps.keys.markers(name),
          kind: FIELD.markers,
          count: MARKERS_PER_ENTRY,
          field,
          line: (line) => line,
        }),
      };
    }
    if (q.forget.size > 0) {
      const gone = take(q.forget);
      for (const key of gone) q.forget.delete(key);
      return { name, write: (m) => m.hdel(deps.keys.channel(name), ...gone) };
    }
  }
  return null;
}

/** The time in the id of the entry a transaction added (XADD answers `<ms>-<seq>`), if it added one. */
function entryTimeOf(results: [Error | null, unknown][]): number | null {
  for (const [, value] of results) {
    if (typeof value === 'string' && /^\d+-\d+$/.test(value)) return Number(value.slice(0, value.indexOf('-')));
  }
  return null;
}

/**
 * The publishing half of the share (share.ts): per channel, records to its hash and the
 * stream, markers to its marker hash and the stream, keys to forget out of its hash, sent
 * in that order, a thousand at a time, one transaction each. Entries are numbered as
 * built: a failed transaction leaves a gap, and readers load everything again; what was
 * queued is dropped, and every channel's held records go out again with the next publish.
 */
export function createOutbox(deps: OutboxDeps): {
  channel(name: string, spec: ChannelSpec<unknown>): void;
  publish(name: string, records: Iterable<unknown>, markers?: readonly Marker[]): void;
  forget(name: string, keys: Iterable<string>): void;
  publishHeld(): void;
  stop(): void;
} {
  const { main, logger } = deps;
  const queues = new Map<string, Queued>();
  let seq = 0;
  let sending = false;
  let stopped = false;
  let failed = false;
  /** When Redis added this replica's last entry (ms, from its id). */
  let lastEntryMs: number | null = null;

  async function send(): Promise<void> {
    if (sending) return;
    sending = true;
    try {
      for (let next = nextWrite(queues, deps); next !== null && !stopped; next = nextWrite(queues, deps)) {
        const { name, write } = next;
        const multi = main.multi();
        write(multi, () => [FIELD.channel, name, FIELD.from, deps.self, FIELD.incarnation, deps.incarnation, FIELD.seq, String(++seq)]);
        // By the time of this replica's previous entry: Redis's clock, whatever this host's says (a cycle late, in a window of minutes).
        if (lastEntryMs !== null) multi.xtrim(deps.keys.updates, 'MINID', '~', String(lastEntryMs - (deps.streamWindowMs ?? STREAM_WINDOW_MS)));
        const done = await multi.exec();
        if (done === null || done.some(([err]) => err !== null)) throw new Error('the transaction failed');
        lastEntryMs = entryTimeOf(done) ?? lastEntryMs;
        // Let served requests in between entries.
        await sleep(0);
      }
    } catch (err) {
      logger.debug({ err }, 'could not share records; they are shared again once Redis answers');
      for (const q of queues.values()) {
        q.records.clear();
        q.held = null;
        q.markers.clear();
      }
      failed = true;
    } finally {
      sending = false;
    }
  }

  function publishHeld(): void {
    failed = false;
    for (const q of queues.values()) {
      q.held = q.spec.held()[Symbol.iterator]();
      // Markers said of records not sent since: the records go out whole.
      q.markers.clear();
    }
    void send();
  }

  return {
    channel(name, spec) {
      queues.set(name, { spec, records: new Map(), held: null, markers: new Map(), forget: new Set() });
    },
    publish(name, records, markers = []) {
      const q = queues.get(name);
      if (q === undefined) return;
      // After a failed write, what the others missed goes out whole first.
      if (failed) publishHeld();
      for (const record of records) q.records.set(q.spec.keyOf(record), record);
      for (const marker of markers) q.markers.set(marker.key, marker.line);
      void send();
    },
    forget(name, gone) {
      const q = queues.get(name);
      if (q === undefined) return;
      for (const key of gone) q.forget.add(key);
      void send();
    },
    publishHeld,
    stop() {
      stopped = true;
    },
  };
}
