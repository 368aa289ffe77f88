import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Snapshot, WalletRecord, WalletsSnapshot } from './types.js';

/**
 * The snapshot file. Written atomically (temp file, fsync, rename, fsync of the folder), so
 * a crash at any instant leaves the previous or the new file, never a broken one. A broken
 * or foreign file found at start is renamed aside (`<file>.broken-<time>`) and reported.
 */

const FORMAT = 'tonwatch-snapshot';
const VERSION = 1;

const shardQueueSchema = z.object({
  workchain: z.number().int(),
  shard: z.string(),
  seqno: z.number().int(),
  rootHash: z.string(),
  fileHash: z.string(),
  size: z.number().int().nonnegative(),
});

const walletStateSchema = z.object({
  address: z.string(),
  balance: z.string().nullable(),
  code_hash: z.string().nullable(),
  extra_currencies: z.record(z.string(), z.string()),
  is_signature_allowed: z.boolean().nullable(),
  is_wallet: z.boolean().nullable(),
  last_transaction_hash: z.string().nullable(),
  last_transaction_lt: z.string().nullable(),
  seqno: z.number().int().nullable(),
  status: z.string(),
  wallet_id: z.number().int().nullable(),
  wallet_type: z.string().nullable(),
});

const walletRecordSchema = z.object({
  raw: z.string(),
  state: walletStateSchema.nullable(),
  addressBook: z.looseObject({ user_friendly: z.string().nullable(), domain: z.string().nullable() }).nullable(),
  metadata: z.unknown().optional(),
  fetchedAt: z.number(),
  upstream: z.string(),
});

const fileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  queueSizes: z
    .object({ fetchedAt: z.number(), upstream: z.string(), extMsgQueueSizeLimit: z.number().int().nonnegative(), shards: z.array(shardQueueSchema) })
    .nullable(),
  wallets: z.object({ fetchedAt: z.number(), records: z.array(walletRecordSchema) }).nullable(),
});

export interface SnapshotPersister {
  /** Loads the file; null when absent, or broken (then it is moved aside and logged). */
  load(): Promise<Snapshot | null>;
  /** Writes the snapshot; concurrent calls are coalesced so the newest one wins. */
  save(snapshot: Snapshot): Promise<void>;
  /** Resolves once every save requested so far has finished. */
  flush(): Promise<void>;
}

export function createSnapshotPersister(options: { file: string; logger: Logger; now: () => number }): SnapshotPersister {
  const { file, logger } = options;
  /** The wallets section is the big one: serialise it once per wallets snapshot. */
  const walletsJson = new WeakMap<WalletsSnapshot, string>();
  let writing: Promise<void> = Promise.resolve();
  let pending: Snapshot | null = null;

  const serialise = (snapshot: Snapshot): string => {
    let wallets = 'null';
    if (snapshot.wallets) {
      wallets = walletsJson.get(snapshot.wallets) ?? '';
      if (wallets === '') {
        wallets = JSON.stringify({ fetchedAt: snapshot.wallets.fetchedAt, records: [...snapshot.wallets.wallets.values()] });
        walletsJson.set(snapshot.wallets, wallets);
      }
    }
    return `{"format":"${FORMAT}","version":${VERSION},"queueSizes":${JSON.stringify(snapshot.queueSizes)},"wallets":${wallets}}\n`;
  };

  const writeAtomically = async (text: string): Promise<void> => {
    const folder = dirname(file);
    await mkdir(folder, { recursive: true });
    const temp = join(folder, `.${basename(file)}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      const handle = await open(temp, 'w', 0o644);
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    // The rename is durable only once the folder entry is on disk.
    const dir = await open(folder, 'r');
    try {
      await dir.sync();
    } catch {
      // Some filesystems refuse fsync on a directory; the rename is still atomic.
    } finally {
      await dir.close();
    }
  };

  const drain = async (): Promise<void> => {
    while (pending !== null) {
      const next = pending;
      pending = null;
      try {
        await writeAtomically(serialise(next));
      } catch (err) {
        logger.error({ err, file }, 'could not persist the snapshot; the previous file stays');
      }
    }
  };

  return {
    async load() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
        logger.error({ err, file }, 'could not read the snapshot file; starting without it');
        return null;
      }
      let problem: string;
      try {
        const parsed = fileSchema.safeParse(JSON.parse(text));
        if (parsed.success) return fromFile(parsed.data);
        problem = `not a ${FORMAT} v${VERSION} file: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`;
      } catch (err) {
        problem = `not valid JSON: ${(err as Error).message}`;
      }
      const aside = `${file}.broken-${options.now()}`;
      try {
        await rename(file, aside);
        logger.error({ file, movedTo: aside, problem }, 'snapshot file is broken or foreign; moved aside, starting without it');
      } catch (err) {
        logger.error({ err, file, problem }, 'snapshot file is broken and could not be moved aside; starting without it');
      }
      return null;
    },
    save(snapshot) {
      pending = snapshot;
      writing = writing.then(drain);
      return writing;
    },
    flush: () => writing,
  };
}

function fromFile(data: z.output<typeof fileSchema>): Snapshot {
  const wallets: WalletsSnapshot | null = data.wallets
    ? { fetchedAt: data.wallets.fetchedAt, wallets: new Map(data.wallets.records.map((r) => [r.raw, r as WalletRecord])) }
    : null;
  return { queueSizes: data.queueSizes, wallets };
}

