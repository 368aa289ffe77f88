import { z, type ZodSafeParseResult } from 'zod';
import { isObject, isPlainRecord } from '../plain-json.js';

/**
 * The snapshot files' format (see persist.ts). The zod schemas are the reference; the
 * wallets file, megabytes at start-up, is checked by hand first (decodeWalletsFileQuickly:
 * a zod parse of 100,000 records took most of a second), and anything that check cannot
 * vouch for goes to zod, which decides and words the error. A property test holds the two
 * to agreeing.
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

const STATE_KEYS = [
  'address',
  'balance',
  'code_hash',
  'extra_currencies',
  'is_signature_allowed',
  'is_wallet',
  'last_transaction_hash',
  'last_transaction_lt',
  'seqno',
  'status',
  'wallet_id',
  'wallet_type',
];
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
  return (
    typeof value.address === 'string' &&
    typeof value.status === 'string' &&
    stringOrNull(value.balance) &&
    stringOrNull(value.code_hash) &&
    stringOrNull(value.last_transaction_hash) &&
    stringOrNull(value.last_transaction_lt) &&
    stringOrNull(value.wallet_type) &&
    booleanOrNull(value.is_signature_allowed) &&
    booleanOrNull(value.is_wallet) &&
    integerOrNull(value.seqno) &&
    integerOrNull(value.wallet_id) &&
    isStringRecord(value.extra_currencies)
  );
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
const booleanOrNull = (value: unknown): boolean => value === null || typeof value === 'boolean';
const integerOrNull = (value: unknown): boolean => value === null || Number.isSafeInteger(value);

function isStringRecord(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  for (const key in value) if (typeof value[key] !== 'string') return false;
  return true;
}
