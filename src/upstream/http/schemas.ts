import * as z from 'zod';
import { parseAddress } from '../../ton/address.js';
import { walletFieldsShape } from '../../domain/wallet-field-checks.js';
import {
  NO_CURRENCIES,
  sharedIfEmpty,
  type AddressBookEntry,
  type RequiredWalletField,
  type ServedWalletState,
  type WalletFieldName,
} from '../../domain/wallet-state.js';
import { parseSignedShard } from '../../ton/shard.js';

/**
 * Bodies as real upstreams send them. Lenient exactly where deployments differ (block id
 * `@type`, `@extra` inside `result`, at the top level, or absent; unknown extra keys),
 * strict about what we export and serve.
 */

const signedShard = z.string().refine((s) => {
  try {
    parseSignedShard(s);
    return true;
  } catch {
    return false;
  }
}, 'not a signed 64-bit decimal shard id');

const base64Hash = z.string().regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'not a base64 256-bit hash');

export const blockIdSchema = z.object({
  /** `ton.blockIdExt` upstream, `chain.blockIdExt` in the seed: any string is accepted. */
  '@type': z.string().optional(),
  workchain: z.number().int().min(-128).max(127),
  shard: signedShard,
  seqno: z.number().int().nonnegative(),
  root_hash: base64Hash,
  file_hash: base64Hash,
});

export const outMsgQueueSizeSchema = z.object({
  '@type': z.string().optional(),
  id: blockIdSchema,
  size: z.number().int().nonnegative(),
});

export const outMsgQueueSizesResultSchema = z.object({
  '@type': z.string().optional(),
  shards: z.array(outMsgQueueSizeSchema).min(1, 'no shards'),
  ext_msg_queue_size_limit: z.number().int().nonnegative(),
  '@extra': z.string().optional(),
});

/** `{"ok":true,"result":{…}}`; the C++ server puts `@extra` here, the Python one inside `result`. */
export const outMsgQueueSizesEnvelopeSchema = z.object({
  ok: z.literal(true),
  result: outMsgQueueSizesResultSchema,
  '@extra': z.string().optional(),
});

/** v2 getMasterchainInfo: only the last block's seqno is read. */
export const masterchainInfoEnvelopeSchema = z.object({
  ok: z.literal(true),
  result: z.object({ last: z.object({ seqno: z.number().int().nonnegative() }) }),
});

/** v3 masterchainInfo (the indexer's first and last indexed masterchain blocks): only last.seqno is read. */
export const indexerMasterchainInfoSchema = z.object({
  last: z.object({ seqno: z.number().int().nonnegative() }),
});

/** v2 failure envelope; the 429 form may carry its message under `result`. */
export const v2ErrorSchema = z.object({
  ok: z.literal(false).optional(),
  error: z.string().optional(),
  result: z.unknown().optional(),
  code: z.number().optional(),
});

/** The human message of an upstream error body, from `error`, else a string `result`. */
export function errorMessageOf(body: unknown): string | undefined {
  const parsed = v2ErrorSchema.safeParse(body);
  if (!parsed.success) return undefined;
  if (parsed.data.error !== undefined) return parsed.data.error;
  return typeof parsed.data.result === 'string' ? parsed.data.result : undefined;
}

/** A validated account's fields as an upstream sends them: anything but address and status may be left out. */
export type UpstreamWalletFields = Pick<ServedWalletState, RequiredWalletField> & {
  readonly [K in Exclude<WalletFieldName, RequiredWalletField>]?: ServedWalletState[K] | null | undefined;
};

/** An account's extra currencies; none (nearly every account) as one shared `{}`. */
function currenciesOrNone(currencies: Readonly<Record<string, string>> | null | undefined): Readonly<Record<string, string>> {
  return currencies === undefined || currencies === null ? NO_CURRENCIES : sharedIfEmpty(currencies);
}

/**
 * The twelve served fields in the API's order, with the one rule for what the upstream
 * left out: null, except extra_currencies, which is `{}`. (Repeating strings are interned
 * where a state is kept: poll/wallet-mapping.ts.) Written out as one literal (the
 * fastest way to build the object); the ServedWalletState type makes a missing field a
 * compile error.
 */
export function servedWalletState(state: UpstreamWalletFields): ServedWalletState {
  return {
    address: state.address,
    balance: state.balance ?? null,
    code_hash: state.code_hash ?? null,
    extra_currencies: currenciesOrNone(state.extra_currencies),
    is_signature_allowed: state.is_signature_allowed ?? null,
    is_wallet: state.is_wallet ?? null,
    last_transaction_hash: state.last_transaction_hash ?? null,
    last_transaction_lt: state.last_transaction_lt ?? null,
    seqno: state.seqno ?? null,
    status: state.status,
    wallet_id: state.wallet_id ?? null,
    wallet_type: state.wallet_type ?? null,
  };
}

/** An address book entry as served: user_friendly and domain null when left out, the rest kept. */
export function filledAddressBookEntry<T extends { user_friendly?: string | null | undefined; domain?: string | null | undefined }>(
  entry: T,
): AddressBookEntry {
  return { ...entry, user_friendly: entry.user_friendly ?? null, domain: entry.domain ?? null };
}

/**
 * One account of a walletStates answer, built from WALLET_STATE_FIELDS: address and status
 * required, every other field nullish. The output is the twelve served fields in the API's
 * order (servedWalletState); `address` stays as the upstream printed it.
 *
 * The poll path decodes with decodeWalletStates (wallet-states.ts), which must agree with
 * these schemas; they are the reference, and produce its error messages.
 */
export const upstreamWalletStateSchema = z
  .object(walletFieldsShape((schema) => schema.nullish()))
  .transform((fields) => servedWalletState(fields as UpstreamWalletFields));

/** An address book entry; user_friendly and domain come out null when left out. */
export const addressBookEntrySchema = z
  .looseObject({
    user_friendly: z.string().nullish(),
    domain: z.string().nullish(),
  })
  .transform(filledAddressBookEntry);

export const walletStatesResponseSchema = z.object({
  wallets: z.array(upstreamWalletStateSchema),
  address_book: z.record(z.string(), addressBookEntrySchema).default({}),
  metadata: z.record(z.string(), z.unknown()).default({}),
});

export type WalletStatesResponse = z.output<typeof walletStatesResponseSchema>;

/** An address the indexer printed, as our canonical key (it prints raw uppercase; any accepted form is read). */
const indexerAddress = z.string().transform((text, ctx) => {
  const parsed = parseAddress(text);
  if (parsed.ok) return parsed.value.raw;
  ctx.addIssue({ code: 'custom', message: `not an address: ${text.slice(0, 80)}` });
  return z.NEVER;
});

/** One row of `GET /api/v3/jetton/wallets` (ton-index-go's JettonWallet), the fields tonwatch keeps. */
const jettonWalletRowSchema = z.object({
  address: indexerAddress,
  balance: z.string().regex(/^\d+$/, 'not a balance in base units'),
  owner: indexerAddress,
  jetton: indexerAddress,
  last_transaction_lt: z.union([z.string().regex(/^\d+$/), z.number().int().nonnegative().transform(String)]),
  code_hash: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
  data_hash: z
    .string()
    .nullish()
    .transform((v) => v ?? null),
});

export const jettonWalletsResponseSchema = z.object({
  jetton_wallets: z.array(jettonWalletRowSchema),
  address_book: z
    .record(z.string(), z.looseObject({ user_friendly: z.string().nullish(), domain: z.string().nullish() }))
    .default({})
    .transform((book) =>
      Object.fromEntries(Object.entries(book).map(([address, entry]) => [address, { user_friendly: entry.user_friendly ?? '', domain: entry.domain ?? null }])),
    ),
});

/** `GET /api/v3/jetton/masters` (ton-index-go's JettonMaster): the address and its parsed metadata, `jetton_content`. */
export const jettonMastersResponseSchema = z.object({
  jetton_masters: z.array(
    z.looseObject({
      address: indexerAddress,
      jetton_content: z.record(z.string(), z.unknown()).nullish(),
    }),
  ),
});
