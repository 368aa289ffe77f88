import * as z from 'zod';
import type { ZodSafeParseResult } from 'zod';
import { isObject, isPlainRecord, walletFieldsShape, WALLET_FIELD_CHECKS } from '../domain/wallet-field-checks.js';
import { WALLET_STATE_FIELDS } from '../domain/wallet-state.js';

/**
 * The snapshot files' format (see persist.ts). The zod schemas are the reference; the
 * wallets file, megabytes at start-up, is checked by hand first (decodeWalletsFileQuickly,
 * which allocates nothing per record), and anything that check cannot vouch for goes to
 * zod, which decides and words the error. A property test holds the two to agreeing.
 */

export const FORMAT = 'tonwatch-snapshot';
export const VERSION = 2;

const shardQueueSchema = z.object({
  workchain: z.number().int(),
  shard: z.string(),
  seqno: z.number().int(),
  rootHash: z.string(),
  fileHash: z.string(),
  size: z.number().int().nonnegative(),
});

/** A served wallet state as persisted: all twelve fields present, those that may be left out upstream null. */
const persistedWalletStateSchema = z.object(walletFieldsShape((schema) => schema.nullable()));

const walletRecordSchema = z.object({
  raw: z.string(),
  state: persistedWalletStateSchema.nullable(),
  addressBook: z.looseObject({ user_friendly: z.string().nullable(), domain: z.string().nullable() }).nullable(),
  metadata: z.unknown().optional(),
  fetchedAt: z.number(),
  upstream: z.string(),
});

export const queueFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  part: z.literal('queue_sizes'),
  queueSizes: z.object({
    fetchedAt: z.number(),
    upstream: z.string(),
    extMsgQueueSizeLimit: z.number().int().nonnegative(),
    shards: z.array(shardQueueSchema),
  }),
});

export const walletsFileSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  part: z.literal('wallets'),
  wallets: z.object({ fetchedAt: z.number(), records: z.array(walletRecordSchema) }),
});

export type WalletsFile = z.output<typeof walletsFileSchema>;
type WalletRecordInFile = WalletsFile['wallets']['records'][number];

export const decodeQueueFile = (value: unknown): ZodSafeParseResult<z.output<typeof queueFileSchema>> => queueFileSchema.safeParse(value);

export function decodeWalletsFile(value: unknown): ZodSafeParseResult<WalletsFile> {
  const quick = decodeWalletsFileQuickly(value);
  return quick !== null ? { success: true, data: quick } : walletsFileSchema.safeParse(value);
}

const STATE_KEYS: readonly string[] = WALLET_STATE_FIELDS.map((field) => field.name);
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
  if (format !== FORMAT || version !== VERSION || part !== 'wallets' || !isObject(wallets)) return null;
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
function isBookAsParsed(value: unknown): boolean {
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

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const stringOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
