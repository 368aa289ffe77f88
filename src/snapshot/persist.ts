import type { Logger } from 'pino';
import { createEpisodeLog } from '../log/episodes.js';
import { readIfPresent, removeStaleTemps, setAside, writeAtomically } from './atomic-file.js';
import { decodeQueueFile } from '../features/wallets/file-format.js';
import { FORMAT, QUEUE_FILE_VERSION } from '../features/queue-sizes/file-format.js';
import { persistFailureReason, type PersistObserver } from './persist-faults.js';
import type { QueueSizesSnapshot, Snapshot, WalletsSnapshot } from './types.js';
import { decodeWalletsBytes, encodeWallets } from '../features/wallets/file.js';

export { PERSIST_FAILURE_REASONS, persistFailureReason, type PersistFailureReason, type PersistObserver } from './persist-faults.js';

/**
 * The snapshot on disk: two files, each written atomically and only when its part
 * changed. `snapshot.file` holds the queue sizes (rewritten every few seconds, a few
 * hundred bytes); `<name>.wallets.json` beside it holds the wallets (megabytes, rewritten
 * once per wallet cycle, a record per line: file-format.ts). A broken or foreign file
 * found at start is renamed aside (`<file>.broken-<time>`) and reported; the other part
 * still loads.
 */

export interface SnapshotPersister {
  /** Loads both files; null when neither holds anything usable. */
  load(): Promise<Snapshot | null>;
  /** Loads the queue-size file alone (small: the daemon serves it before the wallets file is read). */
  loadQueueSizes(): Promise<QueueSizesSnapshot | null>;
  /** Loads the wallets file alone (megabytes at 100,000 wallets); an abort ends the read at its next turn of the event loop, with null. */
  loadWallets(signal?: AbortSignal): Promise<WalletsSnapshot | null>;
  /** Writes the parts that changed since the last write; concurrent calls are coalesced so the newest one wins. */
  save(snapshot: Snapshot): Promise<void>;
  /** Resolves once every save requested so far has finished. */
  flush(): Promise<void>;
}

/** `data/snapshot.json` → `data/snapshot.wallets.json`. */
export function walletsFileOf(file: string): string {
  return file.endsWith('.json') ? `${file.slice(0, -5)}.wallets.json` : `${file}.wallets.json`;
}

/** Wall and process clock parting by less than this is drift, not a step: file times are taken as they are. */
const STEP_MS = 1_000;

export interface SnapshotPersisterOptions {
  readonly file: string;
  readonly logger: Logger;
  readonly observer?: PersistObserver;
  /** The process clock (domain/clock.ts). */
  readonly now: () => number;
  /** Wall minus process time, ms (domain/clock.ts): the file carries wall time; default 0. */
  readonly wallOffset?: () => number;
}

export function createSnapshotPersister(options: SnapshotPersisterOptions): SnapshotPersister {
  const { file, logger } = options;
  const wallOffset = (): number => {
    const offset = options.wallOffset?.() ?? 0;
    return Math.abs(offset) < STEP_MS ? 0 : offset;
  };
  /**
   * A wall time read from a file, on the process clock. After a restart the file's age is
   * judged by wall time; a time in the future (the wall clock stepped back since) counts as
   * now, so it stays fresh for maxAgeSeconds at most.
   */
  const toProcess = (wall: number): number => Math.min(wall - wallOffset(), options.now());
  const walletsFile = walletsFileOf(file);
  let written: { queueSizes: QueueSizesSnapshot | null; wallets: WalletsSnapshot | null } = { queueSizes: null, wallets: null };
  let writing: Promise<void> = Promise.resolve();
  let pending: Snapshot | null = null;

  const writePart = createPartWriter(options, wallOffset);
  let tempsRemoved = false;
  /** Once, before the first load: the temp files of writes a kill cut short. */
  const removeTemps = async (): Promise<void> => {
    if (tempsRemoved) return;
    tempsRemoved = true;
    const removed = [...(await removeStaleTemps(file)), ...(await removeStaleTemps(walletsFile))];
    if (removed.length > 0) logger.info({ removed }, 'removed temp files of writes cut short');
  };

  const drain = async (): Promise<void> => {
    while (pending !== null) {
      const next = pending;
      pending = null;
      if (next.queueSizes && next.queueSizes !== written.queueSizes) {
        const queueSizes = { ...next.queueSizes, fetchedAt: next.queueSizes.fetchedAt + wallOffset() };
        const text = JSON.stringify({ format: FORMAT, version: QUEUE_FILE_VERSION, part: 'queue_sizes', queueSizes });
        if (await writePart(file, `${text}\n`)) written = { ...written, queueSizes: next.queueSizes };
      }
      if (next.wallets && next.wallets !== written.wallets) {
        if (await writePart(walletsFile, encodeWallets(next.wallets, wallOffset()))) written = { ...written, wallets: next.wallets };
      }
    }
  };

  /** Sets a broken or foreign file aside, and says so. */
  async function setBrokenAside(target: string, problem: string): Promise<void> {
    try {
      const movedTo = await setAside(target, options.now());
      logger.error({ file: target, movedTo, problem }, 'snapshot file is broken or foreign; moved aside, starting without it');
    } catch (err) {
      logger.error({ err, file: target, problem }, 'snapshot file is broken and could not be moved aside; starting without it');
    }
  }

  /** The file's bytes; null when absent or unreadable (reported). */
  async function bytesOf(target: string): Promise<Buffer | null> {
    const read = await readIfPresent(target);
    if (read.kind === 'absent') return null;
    if (read.kind === 'unreadable') {
      logger.error({ err: read.error, file: target }, 'could not read the snapshot file; starting without it');
      return null;
    }
    return read.bytes;
  }

  const loadQueueSizes = async (): Promise<QueueSizesSnapshot | null> => {
    await removeTemps();
    const bytes = await bytesOf(file);
    if (bytes === null) return null;
    let problem: string;
    try {
      const parsed = decodeQueueFile(JSON.parse(bytes.toString('utf8')));
      if (parsed.success) {
        const read = parsed.data.queueSizes;
        const queueSizes = { ...read, fetchedAt: toProcess(read.fetchedAt) };
        // What was just read needs no writing back.
        if (written.queueSizes === null) written = { ...written, queueSizes };
        return queueSizes;
      }
      problem = `not a ${FORMAT} v${QUEUE_FILE_VERSION} file: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`;
    } catch (err) {
      problem = `not valid JSON: ${(err as Error).message}`;
    }
    await setBrokenAside(file, problem);
    return null;
  };
  const loadWallets = async (signal?: AbortSignal): Promise<WalletsSnapshot | null> => {
    await removeTemps();
    const bytes = await bytesOf(walletsFile);
    if (bytes === null) return null;
    const decoded = await decodeWalletsBytes(bytes, toProcess, signal);
    if (!decoded.ok && decoded.aborted === true) return null;
    if (!decoded.ok) {
      await setBrokenAside(walletsFile, decoded.problem);
      return null;
    }
    if (written.wallets === null) written = { ...written, wallets: decoded.wallets };
    return decoded.wallets;
  };

  return {
    loadQueueSizes,
    loadWallets,
    async load() {
      const [queueSizes, wallets] = await Promise.all([loadQueueSizes(), loadWallets()]);
      return queueSizes === null && wallets === null ? null : { queueSizes, wallets };
    },
    save(snapshot) {
      pending = snapshot;
      writing = writing.then(drain);
      return writing;
    },
    flush: () => writing,
  };
}

/**
 * Writes one part's file atomically, and says how it went: to the observer (the metrics)
 * every time, to the log once per episode of failures (a failing disk fails every write:
 * said when it starts, every 10 minutes, and when it ends).
 */
function createPartWriter(options: SnapshotPersisterOptions, wallOffset: () => number) {
  const episodes = createEpisodeLog(options.logger, options.now);
  return async (target: string, content: string | Iterable<Uint8Array>): Promise<boolean> => {
    try {
      await writeAtomically(target, content);
    } catch (err) {
      const reason = persistFailureReason(err);
      options.observer?.failed(reason);
      episodes.failed(target, { err, file: target, reason }, 'could not persist the snapshot; the previous file stays');
      return false;
    }
    options.observer?.persisted(options.now() + wallOffset());
    episodes.ok(target, { file: target }, 'snapshot persisted again');
    return true;
  };
}
