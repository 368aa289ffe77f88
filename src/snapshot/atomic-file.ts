import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file atomically: temp file in the same folder, fsync, rename, fsync of the
 * folder. A crash at any instant leaves the previous or the new content, never a mix.
 * `content` may come in parts, written in order; an iterable that encodes each part as it
 * is asked for (a large file, piece by piece) holds one part at a time; an async one may
 * let the event loop turn between parts. Files are the owner's alone by default (0600):
 * snapshots hold names, addresses and balances.
 */
export async function writeAtomically(file: string, content: string | Iterable<Uint8Array> | AsyncIterable<Uint8Array>, mode = 0o600): Promise<void> {
  const folder = dirname(file);
  // A file only its owner may read gets a folder only its owner may enter, when the folder is made here.
  await mkdir(folder, { recursive: true, mode: (mode & 0o077) === 0 ? 0o700 : 0o755 });
  const temp = join(folder, `.${basename(file)}.${randomBytes(4).toString('hex')}${TEMP_SUFFIX}`);
  try {
    const handle = await open(temp, 'w', mode);
    try {
      if (typeof content === 'string') await handle.writeFile(content, 'utf8');
      else for await (const part of content) await handle.write(part);
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
}

const TEMP_SUFFIX = '.tmp';

/**
 * Removes the temp files a killed writeAtomically of `file` left behind: its own name
 * pattern (`.<name>.<8 hex digits>.tmp`), in its own folder, nothing else. For the start of
 * the only process that writes `file`. Returns the names removed.
 */
export async function removeStaleTemps(file: string): Promise<string[]> {
  const folder = dirname(file);
  const prefix = `.${basename(file)}.`;
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const stale = names.filter(
    (name) => name.startsWith(prefix) && name.endsWith(TEMP_SUFFIX) && /^[0-9a-f]{8}$/.test(name.slice(prefix.length, -TEMP_SUFFIX.length)),
  );
  await Promise.all(stale.map((name) => rm(join(folder, name), { force: true })));
  return stale;
}

export type ReadResult =
  { readonly kind: 'absent' } | { readonly kind: 'bytes'; readonly bytes: Buffer } | { readonly kind: 'unreadable'; readonly error: unknown };

/**
 * The file's bytes, read whole; the caller decodes them (in one native call, or a line at
 * a time: readFile's own utf8 decoding goes through a stream decoder, several times slower
 * on a 50 MB file).
 */
export async function readIfPresent(file: string): Promise<ReadResult> {
  const ahead = readsAhead.get(file);
  if (ahead !== undefined) {
    readsAhead.delete(file);
    const { result, identity } = await ahead;
    // Taken only if the file is still the one that was read: same inode, size and modification time, or still absent.
    if (result.kind !== 'unreadable' && identity === (await identityOf(file))) return result;
  }
  try {
    return { kind: 'bytes', bytes: await readWhole(file) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable', error };
  }
}

/** Reads begun before they were asked for (readAhead), by file; each is taken once. */
const readsAhead = new Map<string, Promise<{ result: ReadResult; identity: string | null }>>();

/**
 * Begins reading `files` for readIfPresent calls to come: a start reads its queue sizes'
 * file while it parses its config. What is read is used only if the file has not changed
 * since; dropReadsAhead() lets go of what nothing took.
 */
export function readAhead(files: readonly string[]): void {
  for (const file of files) {
    if (readsAhead.has(file)) continue;
    readsAhead.set(
      file,
      identityOf(file).then(async (identity) => {
        try {
          return { result: { kind: 'bytes', bytes: await readWhole(file) }, identity };
        } catch (error) {
          return { result: (error as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unreadable', error }, identity };
        }
      }),
    );
  }
}

/**
 * What a read begun by readAhead gave, without taking it (a later readIfPresent still
 * does); null when none was begun, or the file has changed since.
 */
export async function peekAhead(file: string): Promise<ReadResult | null> {
  const ahead = readsAhead.get(file);
  if (ahead === undefined) return null;
  const { result, identity } = await ahead;
  return result.kind !== 'unreadable' && identity === (await identityOf(file)) ? result : null;
}

export function dropReadsAhead(): void {
  readsAhead.clear();
}

async function identityOf(file: string): Promise<string | null> {
  try {
    const { dev, ino, size, mtimeMs } = await stat(file);
    return `${dev}:${ino}:${size}:${mtimeMs}`;
  } catch {
    return null;
  }
}

/**
 * A file's bytes, read in one call for its size, as fs.readFile reads a file of known size
 * (but it does so 512 KiB at a time, each a trip through the thread pool: ~100 ms of waiting
 * for a 27 MB wallets file at start).
 */
export async function readWhole(file: string): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const stats = await handle.stat();
    // A pipe or a file of /proc has no size to go by: read to its end.
    if (!stats.isFile() || stats.size === 0) return await handle.readFile();
    const { size } = stats;
    const buffer = Buffer.allocUnsafe(size);
    let length = 0;
    while (length < size) {
      const { bytesRead } = await handle.read(buffer, length, size - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

/** Moves a broken file out of the way (`<file>.broken-<ms>`); returns the new name. */
export async function setAside(file: string, now: number): Promise<string> {
  const aside = `${file}.broken-${now}`;
  await rename(file, aside);
  return aside;
}
