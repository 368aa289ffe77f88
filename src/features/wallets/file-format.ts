import * as z from 'zod';
import type { ZodSafeParseResult } from 'zod';
import { isObject, isPlainRecord, walletFieldsShape, WALLET_FIELD_CHECKS } from '../../domain/wallet-field-checks.js';
import { WALLET_STATE_FIELDS, type WalletFieldName } from '../../domain/wallet-state.js';
import { SNAPSHOT_FORMAT as FORMAT } from '../../snapshot/persisted-file.js';

/**
 * The wallets file's format (`<name>.wallets.json` beside `snapshot.file`). The zod schemas are the reference; wallet
 * records, 100,000 of them at start-up, are checked by hand first (isRecordAsParsed, which
 * allocates nothing), and anything that check cannot vouch for goes to zod, which decides
 * and words the error. A property test holds the two to agreeing.
 *
 * The file is version 6:
 * JSON lines, a header line then one line per record, each record an array of columns
 * (WALLET_COLUMNS; its state an array of the twelve fields): no key repeated 100,000
 * times, and read a line at a time, so loading never holds the whole file as one string
 * or the whole file's objects at once. Values that repeat across wallets (the upstream,
 * code hash, status, wallet type, and the address book entry's fields beyond
 * user_friendly and domain) are written in full once and then as the number of that
 * first writing (references count up from 0 in file order); a state's address equal to
 * the record's key is written as null. The last line lists what the references stand
 * for (`{"references":[…]}`, in number order), so that any one record line can be read
 * on its own (replicas hand each other single lines). It also gives each record line's
 * length in bytes (`"lineBytes"`), written and not read. A state held packed and an
 * address book entry held derived are written as what is held (file-packed.ts), so that
 * a load makes them without packing or deriving again.
 * Versions 5 (states and entries as served), 4 (without the references line), 3 (without
 * references) and 2 (one document of objects) are still read; each is rewritten as
 * version 6 at the next wallet cycle. file-rows.ts writes and reads the record lines.
 */

export const WALLETS_VERSION = 6;
/** The one-document version still read (2, the queue file's version then). */
const DOCUMENT_VERSION = 2;
/** Wallets file versions read as JSON lines. */
const LINE_VERSIONS = [3, 4, 5, 6] as const;
/** A record line's columns, in order; `metadata` is left off when there is none. */
export const WALLET_COLUMNS = ['raw', 'fetchedAt', 'upstream', 'state', 'addressBook', 'metadata'] as const;

/** A served wallet state as persisted: all twelve fields present, those that may be left out upstream null. */
const persistedWalletStateSchema = z.object(walletFieldsShape((schema) => schema.nullable()));

export const walletRecordSchema = z.object({
  raw: z.string(),
  state: persistedWalletStateSchema.nullable(),
  addressBook: z.looseObject({ user_friendly: z.string().nullable(), domain: z.string().nullable() }).nullable(),
  metadata: z.unknown().optional(),
  fetchedAt: z.number(),
  upstream: z.string(),
});

export const walletsFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(DOCUMENT_VERSION),
  part: z.literal('wallets'),
  wallets: z.object({ fetchedAt: z.number(), records: z.array(walletRecordSchema) }),
});

export type WalletsFile = z.output<typeof walletsFileSchema>;
type WalletRecordInFile = WalletsFile['wallets']['records'][number];

export function decodeWalletsFile(value: unknown): ZodSafeParseResult<WalletsFile> {
  const quick = decodeWalletsFileQuickly(value);
  return quick !== null ? { success: true, data: quick } : walletsFileSchema.safeParse(value);
}

export const STATE_KEYS: readonly string[] = WALLET_STATE_FIELDS.map((field) => field.name);
/** Each state field's column in a record line's state array. */
export const COLUMN = Object.fromEntries(STATE_KEYS.map((name, i) => [name, i])) as Record<WalletFieldName, number>;

/** The header line of a version 3 to 6 wallets file: what follows it, and how many records. */
const walletsHeaderSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(LINE_VERSIONS),
  part: z.literal('wallets'),
  fetchedAt: z.number(),
  records: z.number().int().nonnegative(),
  columns: z.array(z.string()).refine((columns) => sameList(columns, WALLET_COLUMNS), 'columns written by another version'),
  stateColumns: z.array(z.string()).refine((columns) => sameList(columns, STATE_KEYS), 'state columns written by another version'),
});
export type WalletsHeader = z.output<typeof walletsHeaderSchema>;

export function walletsHeaderLine(fetchedAt: number, records: number): string {
  return JSON.stringify({ format: FORMAT, version: WALLETS_VERSION, part: 'wallets', fetchedAt, records, columns: WALLET_COLUMNS, stateColumns: STATE_KEYS });
}

/**
 * The first line of a wallets file, parsed: a version 3 to 6 header, or a whole version 2 file
 * (written on one line). Throws on a line that is not JSON.
 */
export function decodeWalletsFirstLine(
  value: unknown,
): { version: 3 | 4 | 5 | 6; header: WalletsHeader } | { version: 2; file: WalletsFile } | { problem: string } {
  if (isObject(value) && (value as { version?: unknown }).version === DOCUMENT_VERSION) {
    const v2 = decodeWalletsFile(value);
    return v2.success ? { version: 2, file: v2.data } : { problem: issueText(v2.error.issues[0]) };
  }
  const header = walletsHeaderSchema.safeParse(value);
  return header.success ? { version: header.data.version, header: header.data } : { problem: issueText(header.error.issues[0]) };
}

/** A zod issue as one line: its path, then its message. */
export function issueText(issue: { path: PropertyKey[]; message: string } | undefined): string {
  return issue === undefined ? 'invalid' : `${issue.path.map(String).join('.')} ${issue.message}`.trim();
}
const RECORD_KEYS = ['raw', 'state', 'addressBook', 'metadata', 'fetchedAt', 'upstream'];
const RECORD_KEYS_WITHOUT_METADATA = RECORD_KEYS.filter((key) => key !== 'metadata');

/**
 * The wallets file as walletsFileSchema would parse it; null when not sure it would. The
 * records are the parsed objects themselves, so each must already be exactly what zod
 * would make of it: its keys and no others, in the schema's order.
 */
export function decodeWalletsFileQuickly(value: unknown): WalletsFile | null {
  if (!isObject(value)) return null;
  const { format, version, part, wallets } = value as Record<string, unknown>;
  if (format !== FORMAT || version !== DOCUMENT_VERSION || part !== 'wallets' || !isObject(wallets)) return null;
  const { fetchedAt, records } = wallets as Record<string, unknown>;
  if (!isNumber(fetchedAt) || !Array.isArray(records)) return null;
  for (const record of records as unknown[]) if (!isRecordAsParsed(record)) return null;
  return { format, version, part, wallets: { fetchedAt, records: records as WalletRecordInFile[] } };
}

function isRecordAsParsed(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const keys = Object.keys(value);
  if (!sameList(keys, RECORD_KEYS) && !sameList(keys, RECORD_KEYS_WITHOUT_METADATA)) return false;
  const { raw, state, addressBook, fetchedAt, upstream } = value;
  return (
    typeof raw === 'string' &&
    isNumber(fetchedAt) &&
    typeof upstream === 'string' &&
    (state === null || isStateAsParsed(state)) &&
    (addressBook === null || isBookAsParsed(addressBook))
  );
}

function isStateAsParsed(value: unknown): boolean {
  if (!isPlainRecord(value) || !sameList(Object.keys(value), STATE_KEYS)) return false;
  for (const { name, required, check } of WALLET_FIELD_CHECKS) {
    const field = value[name];
    if (!(required ? check(field) : field === null || check(field))) return false;
  }
  return true;
}

/** zod's looseObject puts the known keys first: user_friendly, domain, then the rest. */
export function isBookAsParsed(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  const keys = Object.keys(value);
  const { user_friendly: friendly, domain } = value;
  return keys[0] === 'user_friendly' && keys[1] === 'domain' && stringOrNull(friendly) && stringOrNull(domain);
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

export const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const stringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
