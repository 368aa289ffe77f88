import type { Logger } from 'pino';
import type { ZodSafeParseResult } from 'zod';
import { readIfPresent, setAside, writeAtomically } from './atomic-file.js';
import { decodeQueueFile, decodeWalletsFile, FORMAT, VERSION } from './file-format.js';
import type { QueueSizesSnapshot, Snapshot, WalletRecord, WalletsSnapshot } from './types.js';

/**
 * The snapshot on disk: two files, each written atomically and only when its part
 * changed. `snapshot.file` holds the queue sizes (rewritten every few seconds, a few
 * hundred bytes); `<name>.wallets.json` beside it holds the wallets (megabytes, rewritten
 * once per wallet cycle). A broken or foreign file found at start is renamed aside
 * (`<file>.broken-<time>`) and reported; the other part still loads.
 */

export interface SnapshotPersister {
  /** Loads both files; null when neither holds anything usable. */
  load(): Promise<Snapshot | null>;
  /** Loads the queue-size file alone (small: the daemon serves it before the wallets file is read). */
  loadQueueSizes(): Promise<QueueSizesSnapshot | null>;
  /** Loads the wallets file alone (megabytes at 100,000 wallets). */
  loadWallets(): Promise<WalletsSnapshot | null>;
  /** Writes the parts that changed since the last write; concurrent calls are coalesced so the newest one wins. */
  save(snapshot: Snapshot): Promise<void>;
  /** Resolves once every save requested so far has finished. */
  flush(): Promise<void>;
}

/** `data/snapshot.json` → `data/snapshot.wallets.json`. */
export function walletsFileOf(file: string): string {
  return file.endsWith('.json') ? `${file.slice(0, -5)}.wallets.json` : `${file}.wallets.json`;
}

/** Records per encoded piece of the wallets file. */
const RECORDS_PER_PART = 1000;

/**
 * The wallets file, encoded a thousand records at a time: it runs to tens of megabytes,
 * and one string of all of it would be built, then encoded, whole.
 */
function encodeWallets(wallets: WalletsSnapshot): Buffer[] {
  const records = [...wallets.wallets.values()];
  const parts = [Buffer.from(`{"format":"${FORMAT}","version":${VERSION},"part":"wallets","wallets":{"fetchedAt":${wallets.fetchedAt},"records":[`)];
  for (let start = 0; start < records.length; start += RECORDS_PER_PART) {
    const json = JSON.stringify(records.slice(start, start + RECORDS_PER_PART));
    // Without the brackets; pieces after the first start with a comma.
    parts.push(Buffer.from(`${start === 0 ? '' : ','}${json.slice(1, -1)}`));
  }
  parts.push(Buffer.from(']}}\n'));
  return parts;
}

export function createSnapshotPersister(options: { file: string; logger: Logger; now: () => number }): SnapshotPersister {
  const { file, logger } = options;
  const walletsFile = walletsFileOf(file);
  let written: { queueSizes: QueueSizesSnapshot | null; wallets: WalletsSnapshot | null } = { queueSizes: null, wallets: null };
  let writing: Promise<void> = Promise.resolve();
  let pending: Snapshot | null = null;

  const writePart = async (target: string, content: string | readonly Uint8Array[]): Promise<boolean> => {
    try {
      await writeAtomically(target, content);
      return true;
    } catch (err) {
      logger.error({ err, file: target }, 'could not persist the snapshot; the previous file stays');
      return false;
    }
  };

  const drain = async (): Promise<void> => {
    while (pending !== null) {
      const next = pending;
      pending = null;
      if (next.queueSizes && next.queueSizes !== written.queueSizes) {
        const text = JSON.stringify({ format: FORMAT, version: VERSION, part: 'queue_sizes', queueSizes: next.queueSizes });
        if (await writePart(file, `${text}\n`)) written = { ...written, queueSizes: next.queueSizes };
      }
      if (next.wallets && next.wallets !== written.wallets) {
        if (await writePart(walletsFile, encodeWallets(next.wallets))) written = { ...written, wallets: next.wallets };
      }
    }
  };

  /** Reads and validates one part; a broken or foreign file is set aside. */
  async function loadPart<T>(target: string, decode: (value: unknown) => ZodSafeParseResult<T>): Promise<T | null> {
    const read = await readIfPresent(target);
    if (read.kind === 'absent') return null;
    if (read.kind === 'unreadable') {
      logger.error({ err: read.error, file: target }, 'could not read the snapshot file; starting without it');
      return null;
    }
    let problem: string;
    try {
      const parsed = decode(JSON.parse(read.text));
      if (parsed.success) return parsed.data;
      problem = `not a ${FORMAT} v${VERSION} file: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`;
    } catch (err) {
      problem = `not valid JSON: ${(err as Error).message}`;
    }
    try {
      const movedTo = await setAside(target, options.now());
      logger.error({ file: target, movedTo, problem }, 'snapshot file is broken or foreign; moved aside, starting without it');
    } catch (err) {
      logger.error({ err, file: target, problem }, 'snapshot file is broken and could not be moved aside; starting without it');
    }
    return null;
  }

  const loadQueueSizes = async (): Promise<QueueSizesSnapshot | null> => {
    const queueSizes = (await loadPart(file, decodeQueueFile))?.queueSizes ?? null;
    // What was just read needs no writing back.
    if (queueSizes !== null && written.queueSizes === null) written = { ...written, queueSizes };
    return queueSizes;
  };
  const loadWallets = async (): Promise<WalletsSnapshot | null> => {
    const part = await loadPart(walletsFile, decodeWalletsFile);
    if (part === null) return null;
    const wallets: WalletsSnapshot = { fetchedAt: part.wallets.fetchedAt, wallets: new Map(part.wallets.records.map((r) => [r.raw, r as WalletRecord])) };
    if (written.wallets === null) written = { ...written, wallets };
    return wallets;
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
