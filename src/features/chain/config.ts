import * as z from 'zod';
import type { ConfigPiece } from '../../config/piece.js';
import { labelsSchema } from '../../config/schema.js';

/** A validator on the `validators:` list: found by its public key or its ADNL address. */
export interface WatchedValidator {
  readonly name: string;
  /** 64 lowercase hex digits; null when it is found by its ADNL address. */
  readonly publicKey: string | null;
  readonly adnl: string | null;
  readonly labels: Readonly<Record<string, string>>;
}

/** What the chain feature polls: each part can be turned off (its calls with it). */
export interface ChainSettings {
  /** Every chain's newest block (ton_block_timestamp_seconds). */
  readonly heads: boolean;
  /** Validator sets, elections, config 15/17 and the watched validators. */
  readonly validators: boolean;
}

declare module '../../domain/config.js' {
  interface Config {
    readonly chain: ChainSettings;
    readonly validators: readonly WatchedValidator[];
  }
  interface Schedules {
    /** When every chain's newest block is asked. Default every 15 s. */
    readonly chainHeads: string;
    /** When the validator sets, the elections and the watched validators are asked. Default every minute. */
    readonly validators: string;
  }
}

/** Label names the validator series carry themselves. */
const OWN_LABELS = new Set(['validator', 'set', 'chain', 'election_id', 'limit', 'param']);

const hexKey = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits')
  .transform((key) => key.toLowerCase());

const watchedValidator = z
  .strictObject({
    /** How it is shown: the `validator` label. */
    name: z.string().min(1).max(128),
    /** Its validator public key (ed25519), hex. */
    publicKey: hexKey.optional(),
    /** Its ADNL address, hex: the key is found in the sets and elections. */
    adnl: hexKey.optional(),
    labels: labelsSchema().default({}),
  })
  .superRefine((entry, ctx) => {
    if ((entry.publicKey === undefined) === (entry.adnl === undefined)) ctx.addIssue({ code: 'custom', message: 'give publicKey or adnl (one of them)' });
    for (const name of Object.keys(entry.labels)) {
      if (OWN_LABELS.has(name)) ctx.addIssue({ code: 'custom', path: ['labels', name], message: `"${name}" is a label name the validator series use` });
    }
  })
  .transform((entry): WatchedValidator => ({ name: entry.name, publicKey: entry.publicKey ?? null, adnl: entry.adnl ?? null, labels: entry.labels }));

export const CHAIN_CONFIG: ConfigPiece = {
  keys: {
    chain: z.strictObject({ heads: z.boolean().default(true), validators: z.boolean().default(true) }).prefault({}),
    validators: z
      .array(watchedValidator)
      .max(1000)
      .default([])
      .superRefine((list, ctx) => {
        const seen = new Map<string, number>();
        list.forEach((v, i) => {
          const first = seen.get(v.name);
          if (first !== undefined)
            ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate validator name "${v.name}" (also validators.${first})` });
          seen.set(v.name, i);
        });
      }),
  },
  schedules: { chainHeads: '*/15 * * * * *', validators: '0 * * * * *' },
};
