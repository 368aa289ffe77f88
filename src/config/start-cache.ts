import { createHash } from 'node:crypto';
import { deserialize, serialize } from 'node:v8';
import { readIfPresent, writeAtomically } from '../snapshot/atomic-file.js';
import { startCacheFile } from './start-cache-path.js';
import { redactUrl } from './redact.js';
import { encodeCache, nothingKept, readCache, type Kept } from './start-cache-file.js';
import type { EarlyRecord } from './early-record.js';
import { fileSourceOf, type FileColumns, type FileSource } from './watchlist.js';
import type { ConfigFile } from './schema.js';

/**
 * What a start parses and can keep for the next one: the config file's YAML document and
 * each watchlist file's raw keys and names, each under the SHA-256 of the bytes it was
 * parsed from (and, for a file, the jettons its entry gives it). An unchanged file is not
 * parsed again; a changed one always is, and what it gave replaces what was kept. The
 * `yaml` library takes ~1 ms per inline entry on a cold start, and a 100,000-line file
 * ~270 ms of address parsing; both are done again only when their bytes change.
 *
 * A document holding a secret in clear (an API key, a password in a URL) is not kept: the
 * cache must not copy a secret to another place on disk. Secrets taken from the
 * environment (`${NAME}`) are kept as written, not as their values.
 */
export interface StartCache {
  /** The YAML document kept for `text`, unchanged since; undefined when it must be parsed (and then given to keepDocument). */
  keptDocument(text: string): unknown;
  keepDocument(text: string, document: unknown): void;
  /**
   * The `watchlist:` entries of that document as the config schema gave them, when they
   * were kept with it: entries without a `${NAME}` depend on nothing but the document.
   */
  keptEntries(text: string): ConfigFile['watchlist'] | undefined;
  keepEntries(text: string, entries: ConfigFile['watchlist']): void;
  /**
   * What the config schema made of `filled` (that document as the environment filled it
   * in), when the last start checked the same: the schema is then neither built nor run.
   * Kept under a SHA-256 of `filled`, without the values that may be secrets (an upstream's
   * URL and API key, the Redis URL), which are taken from `filled` again.
   */
  keptParsed(text: string, filled: unknown): ConfigFile | undefined;
  keepParsed(text: string, filled: unknown, parsed: ConfigFile): void;
  /** The parsed watchlist file of these bytes and jettons: the kept one, else `parse()`'s (kept when clean). */
  watchlistFile(file: string, bytes: Uint8Array, jettons: readonly string[], parse: () => { source: FileSource; clean: boolean }): FileSource;
  /**
   * Writes the cache if a parse since the last save changed it, dropping files no load used
   * since; the event loop turns between the parts of a large file.
   */
  save(): Promise<'unchanged' | 'saved'>;
  /** The files the last start read next (its queue sizes' file): read ahead while this one parses. */
  readonly readAhead: readonly string[];
  keepReadAhead(files: readonly string[]): void;
  /** Kept for the next start to answer with before its code is loaded (early-record.ts); null: it cannot. */
  keepEarly(record: EarlyRecord | null): void;
  /** Parts found unchanged and parts parsed, since the cache was opened. */
  readonly counts: { readonly hits: number; readonly misses: number };
}

/** A cache that keeps nothing: every part is parsed. */
export const NO_START_CACHE: StartCache = {
  keptDocument: () => undefined,
  keepDocument: () => undefined,
  keptEntries: () => undefined,
  keepEntries: () => undefined,
  keptParsed: () => undefined,
  keepParsed: () => undefined,
  watchlistFile: (_file, _bytes, _jettons, parse) => parse().source,
  save: () => Promise.resolve('unchanged'),
  readAhead: [],
  keepReadAhead: () => undefined,
  keepEarly: () => undefined,
  counts: { hits: 0, misses: 0 },
};

/**
 * Opens the cache of `configPath` in `dir` (made when first saved, private to the user).
 * A missing file is an empty cache; an unreadable or foreign one too, with the reason in
 * `problem` (for a log line: the start goes on, parsing everything). The file's read may
 * have begun before the code was loaded (main.ts: readAhead).
 */
export async function openStartCache(dir: string, configPath: string, tonwatch: string): Promise<{ cache: StartCache; problem: string | null }> {
  const path = startCacheFile(dir, configPath);
  let kept: Kept = nothingKept();
  let problem: string | null = null;
  try {
    const read = await readIfPresent(path);
    if (read.kind === 'unreadable') throw read.error;
    if (read.kind === 'bytes') kept = readCache(read.bytes, configPath, tonwatch);
  } catch (err) {
    problem = err instanceof Error ? err.message : String(err);
  }
  return { cache: createStartCache(path, configPath, tonwatch, kept), problem };
}

function createStartCache(path: string, configPath: string, tonwatch: string, kept: Kept): StartCache {
  let document = kept.document;
  const files = kept.files;
  let readAhead = kept.readAhead;
  let early = kept.early;
  const used = new Set<string>();
  let changed = false;
  const counts = { hits: 0, misses: 0 };
  // A load asks for its config text's digest up to five times, and for its filled-in document's twice.
  const textDigest = lastDigest((text: string) => digestOf(text));
  const filledDigest = lastDigest((filled: unknown) => digestOf(serialize(filled)));
  return {
    counts,
    readAhead,
    keepReadAhead(next) {
      if (next.length === readAhead.length && next.every((file, i) => file === readAhead[i])) return;
      readAhead = [...next];
      changed = true;
    },
    keepEarly(next) {
      if (JSON.stringify(next) === JSON.stringify(early)) return;
      early = next;
      changed = true;
    },
    keptDocument(text) {
      if (document !== null && document.digest === textDigest(text)) {
        counts.hits += 1;
        return deserialize(document.bytes) as unknown;
      }
      counts.misses += 1;
      return undefined;
    },
    keepDocument(text, value) {
      document = holdsSecretInClear(value) ? null : { digest: textDigest(text), bytes: serialize(value) };
      changed = true;
    },
    keptEntries(text) {
      if (document?.entries === undefined || document.digest !== textDigest(text)) return undefined;
      return deserialize(document.entries) as ConfigFile['watchlist'];
    },
    keepEntries(text, entries) {
      if (document === null || document.digest !== textDigest(text)) return;
      document = { ...document, entries: serialize(entries) };
      changed = true;
    },
    keptParsed(text, filled) {
      const kept = document?.parsed;
      if (kept === undefined || document?.digest !== textDigest(text) || kept.key !== filledDigest(filled)) return undefined;
      return withSecretsOf(deserialize(kept.bytes) as ConfigFile, filled);
    },
    keepParsed(text, filled, parsed) {
      if (document === null || document.digest !== textDigest(text)) return;
      document = { ...document, parsed: { key: filledDigest(filled), bytes: serialize(withoutSecrets(parsed, filled)) } };
      changed = true;
    },
    watchlistFile(file, bytes, jettons, parse) {
      const digest = `${digestOf(bytes)} ${jettons.join(',')}`;
      used.add(file);
      const entry = files.get(file);
      if (entry?.digest === digest) {
        counts.hits += 1;
        const source = entry.source ?? fileSourceOf(file, entry.columns as FileColumns, jettons);
        if (entry.source === null) files.set(file, { digest, source, columns: null });
        return source;
      }
      counts.misses += 1;
      const { source, clean } = parse();
      if (clean) files.set(file, { digest, source, columns: null });
      else files.delete(file);
      changed = true;
      return source;
    },
    async save() {
      for (const file of [...files.keys()]) {
        if (used.has(file)) continue;
        files.delete(file);
        changed = true;
      }
      used.clear();
      if (!changed) return 'unchanged';
      changed = false;
      await writeAtomically(path, encodeCache(configPath, tonwatch, { document, files, readAhead, early }), 0o600);
      return 'saved';
    },
  };
}

/** `digest`, remembering the last value it was asked for and its digest. */
function lastDigest<T>(digest: (value: T) => string): (value: T) => string {
  let last: { value: T; digest: string } | null = null;
  return (value) => {
    if (last === null || last.value !== value) last = { value, digest: digest(value) };
    return last.digest;
  };
}

function digestOf(content: string | Uint8Array): string {
  return createHash('sha256').update(content).digest('base64');
}

type Filled = { upstreams?: ({ url?: unknown; apiKey?: unknown } | undefined)[]; cluster?: { redis?: unknown } | null } | null;

/**
 * The parsed config without the values that may be secrets, as the filled-in document gave
 * them (an upstream's URL and API key, the Redis URL): each left as an empty string, to be
 * put back from the document by withSecretsOf. Values from the schema's defaults stay.
 */
function withoutSecrets(parsed: ConfigFile, filled: unknown): ConfigFile {
  const doc = filled as Filled;
  return {
    ...parsed,
    upstreams: parsed.upstreams.map((u, i) =>
      u.kind === 'http' && doc?.upstreams?.[i] !== undefined ? { ...u, url: '', ...(u.apiKey === undefined ? {} : { apiKey: '' }) } : u,
    ),
    cluster: parsed.cluster === null ? null : { ...parsed.cluster, redis: '' },
  };
}

/** What withoutSecrets left out, from the filled-in document (the schema keeps these values as written); undefined when it does not have them. */
function withSecretsOf(parsed: ConfigFile, filled: unknown): ConfigFile | undefined {
  const doc = filled as Filled;
  const upstreams: ConfigFile['upstreams'] = [];
  for (const [i, u] of parsed.upstreams.entries()) {
    const written = doc?.upstreams?.[i];
    if (u.kind !== 'http' || written === undefined) {
      upstreams.push(u);
      continue;
    }
    const { url, apiKey } = written;
    if (typeof url !== 'string' || (u.apiKey !== undefined && typeof apiKey !== 'string')) return undefined;
    upstreams.push({ ...u, url, ...(u.apiKey === undefined ? {} : { apiKey: apiKey as string }) });
  }
  if (parsed.cluster === null) return { ...parsed, upstreams };
  const redis = doc?.cluster?.redis;
  return typeof redis === 'string' ? { ...parsed, upstreams, cluster: { ...parsed.cluster, redis } } : undefined;
}

/** Whether the document holds a secret in clear: an API key, or credentials in a URL, not taken from the environment. */
function holdsSecretInClear(document: unknown): boolean {
  const inClear = (value: unknown): value is string => typeof value === 'string' && !value.includes('${');
  const doc = document as { upstreams?: unknown; cluster?: { redis?: unknown } } | null;
  const upstreams: unknown[] = Array.isArray(doc?.upstreams) ? (doc.upstreams as unknown[]) : [];
  for (const upstream of upstreams) {
    const { apiKey, url } = (upstream ?? {}) as { apiKey?: unknown; url?: unknown };
    if (inClear(apiKey) || (inClear(url) && redactUrl(url) !== url)) return true;
  }
  const redis = doc?.cluster?.redis;
  return inClear(redis) && redactUrl(redis) !== redis;
}
