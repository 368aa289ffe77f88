import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { createEpisodeLog } from '../log/episodes.js';
import { readIfPresent, removeStaleTemps, setAside, writeAtomically } from './atomic-file.js';
import { persistFailureReason, type PersistObserver } from './persist-faults.js';

/**
 * One part of the snapshot on disk, a file of its own, written atomically and only when the
 * part changed: each feature keeps its part in one (queue sizes in `snapshot.file`, the
 * others beside it: partFile). A file found broken or foreign at start is renamed aside
 * (`<file>.broken-<ms>`) and reported; the daemon goes on without it. The part's format is
 * its feature's (`encode`, `decode`); times in a file are wall time, in memory the process
 * clock's.
 */
export interface PersistedFile<T> {
  readonly file: string;
  /** The part the file holds; null when there is none, or it cannot be used (reported). An abort ends the read with null. */
  load(signal?: AbortSignal): Promise<T | null>;
  /**
   * Writes the part unless it is the one written last; concurrent calls are coalesced, the
   * newest winning. With `busyShare`, a write waits its turn unless `now` (shutdown).
   * `giveUpAt` (performance.now() time; a stop's limit, the newest save's): a write still
   * encoding then is given up, and the previous file stays.
   */
  save(part: T, now?: boolean, giveUpAt?: number): Promise<void>;
  /** Resolves once every save asked for so far has finished. */
  flush(): Promise<void>;
}

/** How a part is written and read: times in it are turned to and from wall time by the offset and function given. */
export interface PartCodec<T> {
  /** What the part is, in log lines: `queue sizes`, `wallet states`. */
  readonly what: string;
  encode(part: T, wallOffset: number): string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
  decode(bytes: Buffer, toProcess: (wall: number) => number, signal?: AbortSignal): Promise<DecodedPart<T>> | DecodedPart<T>;
}

export type DecodedPart<T> = { readonly ok: true; readonly part: T } | { readonly ok: false; readonly problem: string; readonly aborted?: true };

/** The snapshot files' format name, in each file's first line. */
export const SNAPSHOT_FORMAT = 'tonwatch-snapshot';

/** `data/snapshot.json` and `wallets` → `data/snapshot.wallets.json`: where a part other than the first is kept. */
export function partFile(file: string, part: string): string {
  return join(dirname(file), file.endsWith('.json') ? `${basename(file, '.json')}.${part}.json` : `${basename(file)}.${part}.json`);
}

export interface PersistedFileOptions<T> {
  readonly file: string;
  readonly codec: PartCodec<T>;
  readonly logger: Logger;
  readonly observer?: PersistObserver | undefined;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts); default 0. */
  readonly wallOffset?: (() => number) | undefined;
  /**
   * The most of the time writing may take: after a write that took d ms, the next begins
   * d / busyShare ms after it began at the soonest (the newest part then). For a part of
   * hundreds of megabytes, rewritten after every cycle, whose encoding competes with
   * serving; unset: every save writes at once.
   */
  readonly busyShare?: number | undefined;
}

/** A write given up (persisted-file's `cut`): for a newer part written at once, or past a stop's limit. */
class WriteCut extends Error {}

/** The encoded parts, until `cut()` gives a reason to stop: then the write fails with WriteCut, and its temp file goes. */
async function* unlessCut(parts: Iterable<Uint8Array> | AsyncIterable<Uint8Array>, cut: () => string | null): AsyncGenerator<Uint8Array> {
  for await (const part of parts) {
    const reason = cut();
    if (reason !== null) throw new WriteCut(reason);
    yield part;
  }
}

const GAVE_WAY = 'a write under way gave way to the newest part, written at once; the previous file stays until then';
const PAST_LIMIT = "the write would not end within the stop's limit: given up, the previous file stays";

/** Wall and process clock parting by less than this is drift, not a step: file times are taken as they are. */
const STEP_MS = 1_000;

export function createPersistedFile<T>(options: PersistedFileOptions<T>): PersistedFile<T> {
  const { file, codec, logger } = options;
  const wallOffset = (): number => {
    const offset = options.wallOffset?.() ?? 0;
    return Math.abs(offset) < STEP_MS ? 0 : offset;
  };
  /**
   * A wall time read from the file, on the process clock. After a restart the file's age is
   * judged by wall time; a time in the future (the wall clock stepped back since) counts as
   * now, so it stays fresh for maxAgeSeconds at most.
   */
  const toProcess = (wall: number): number => Math.min(wall - wallOffset(), options.now());
  const episodes = createEpisodeLog(logger, options.now);
  let written: T | null = null;
  let pending: T | null = null;
  let writing: Promise<void> = Promise.resolve();
  /** When the next write may begin (performance.now()), and how to end the wait for it early. */
  let nextWriteAt = 0;
  let urgent = false;
  let giveUpAt = Infinity;
  let wake: (() => void) | null = null;

  const turn = async (): Promise<void> => {
    const wait = nextWriteAt - performance.now();
    if (wait <= 0 || urgent) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      timer.unref();
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    wake = null;
  };

  const write = async (part: T): Promise<void> => {
    const began = performance.now();
    // A newer part marked now (shutdown) cuts this write short: it is written at once instead, not after this one.
    // Past a stop's limit, the write is given up: the stop ends in time, with the file written before.
    const cut = (): string | null => (urgent && pending !== null && pending !== part ? GAVE_WAY : performance.now() > giveUpAt ? PAST_LIMIT : null);
    try {
      const content = codec.encode(part, wallOffset());
      await writeAtomically(file, typeof content === 'string' ? content : unlessCut(content, cut));
      if (options.busyShare !== undefined) nextWriteAt = began + (performance.now() - began) / options.busyShare;
    } catch (err) {
      if (err instanceof WriteCut) {
        const seconds = (performance.now() - began) / 1000;
        if (err.message === PAST_LIMIT) logger.warn({ file, seconds }, PAST_LIMIT);
        else logger.info({ file, seconds }, GAVE_WAY);
        return;
      }
      const reason = persistFailureReason(err);
      options.observer?.failed(reason);
      // A failing disk fails every write: said when it starts, every 10 minutes, and when it ends.
      episodes.failed(file, { err, file, reason }, 'could not persist the snapshot; the previous file stays');
      return;
    }
    written = part;
    options.observer?.persisted(options.now() + wallOffset());
    episodes.ok(file, { file }, 'snapshot persisted again');
  };

  const drain = async (): Promise<void> => {
    while (pending !== null) {
      await turn();
      const next = pending;
      pending = null;
      if (next !== written) await write(next);
    }
  };

  /** Sets a broken or foreign file aside, and says so. */
  const setBrokenAside = async (problem: string): Promise<void> => {
    try {
      const movedTo = await setAside(file, options.now());
      logger.error({ file, movedTo, problem }, 'snapshot file is broken or foreign; moved aside, starting without it');
    } catch (err) {
      logger.error({ err, file, problem }, 'snapshot file is broken and could not be moved aside; starting without it');
    }
  };

  return {
    file,
    async load(signal) {
      const removed = await removeStaleTemps(file);
      if (removed.length > 0) logger.info({ removed }, 'removed temp files of writes cut short');
      const read = await readIfPresent(file);
      if (read.kind === 'absent') return null;
      if (read.kind === 'unreadable') {
        logger.error({ err: read.error, file }, `could not read the snapshot file (${codec.what}); starting without it`);
        return null;
      }
      const decoded = await codec.decode(read.bytes, toProcess, signal);
      if (!decoded.ok) {
        if (decoded.aborted !== true) await setBrokenAside(decoded.problem);
        return null;
      }
      // What was just read needs no writing back.
      written ??= decoded.part;
      return decoded.part;
    },
    save(part, now = false, until = Infinity) {
      pending = part;
      giveUpAt = until;
      if (now) {
        urgent = true;
        wake?.();
      }
      writing = writing.then(drain).finally(() => {
        if (pending === null) urgent = false;
      });
      return writing;
    },
    flush: () => writing,
  };
}

/**
 * A part's file where the config in force says (`file()`, read at each call): when a reload
 * moves it, the next save goes to the new place once the writes to the old one are done.
 */
export function createPersistedPart<T>(file: () => string, options: Omit<PersistedFileOptions<T>, 'file'>): PersistedFile<T> {
  let current: PersistedFile<T> | null = null;
  let before: Promise<void> = Promise.resolve();
  const inForce = (): PersistedFile<T> => {
    const path = file();
    if (current === null || path !== current.file) {
      if (current !== null) before = current.flush();
      current = createPersistedFile({ ...options, file: path });
    }
    return current;
  };
  return {
    get file() {
      return inForce().file;
    },
    load: (signal) => inForce().load(signal),
    save(part, now, giveUpAt) {
      const to = inForce();
      return before.then(() => to.save(part, now, giveUpAt));
    },
    flush: () => before.then(() => inForce().flush()),
  };
}
