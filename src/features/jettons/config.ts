import * as z from 'zod';
import { addressString } from '../../config/address-schema.js';
import type { ConfigPiece } from '../../config/piece.js';
import type { Config, WatchedWallet } from '../../domain/config.js';
import type { JettonSettings } from '../../domain/jettons.js';
import { parseAddress } from '../../ton/address.js';

declare module '../../domain/config.js' {
  interface Config {
    /** Jettons by the operator's name, in config order. */
    readonly jettons: readonly JettonSettings[];
    /** Jetton names watched for every wallet on the watchlist. */
    readonly watchJettons: readonly string[];
  }
  interface WatchlistEntry {
    /** Names of `jettons` whose balances to watch, besides `watchJettons`. */
    readonly jettons?: readonly string[] | undefined;
    /** Alert thresholds in jetton units, by jetton name; exported as ton_jetton_min_balance. */
    readonly minJettonBalance?: Readonly<Record<string, number>> | undefined;
  }
  interface WatchedWallet {
    /** Jetton names watched for this wallet beyond `watchJettons` (its entry's or file's); frozen; absent: none. */
    readonly jettons?: readonly string[] | undefined;
    /** Thresholds in jetton units by jetton name; absent when none. Frozen. */
    readonly minJettonBalance?: Readonly<Record<string, number>> | undefined;
  }
}

/** The operator's name for a jetton: the `jetton` label. */
export const jettonName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,31}$/, 'a jetton name is a letter then up to 31 letters, digits, _ . or -');
export const jettonNames = z.array(jettonName).max(64);

export const jettonSchema = z.strictObject({
  /** The jetton master's address, any form. */
  master: addressString,
  /** Digits after the point (USD₮: 6); left out, read from the master's metadata (TEP-64). */
  decimals: z.number().int().min(0, 'decimals must be 0..255').max(255, 'decimals must be 0..255').optional(),
});

/** What checkJettonNames reads of the parsed file. */
interface JettonReferences {
  readonly jettons: readonly { readonly name: string }[];
  readonly watchJettons: readonly string[];
  readonly watchlist: readonly { readonly jettons?: readonly string[] | undefined; readonly minJettonBalance?: Readonly<Record<string, number>> | undefined }[];
  readonly watchlistFiles: readonly (string | { readonly jettons: readonly string[] })[];
}

/**
 * Every jetton name used (watchJettons, entries' jettons and thresholds, files' jettons) is
 * one `jettons` defines; a threshold's jetton is watched for its entry.
 */
export function checkJettonNames(config: JettonReferences, ctx: z.RefinementCtx): void {
  const names = config.jettons.map((j) => j.name);
  const known = (name: string): boolean => names.includes(name);
  const unknown = (name: string): string => {
    return `unknown jetton "${name}": ${names.length === 0 ? 'no jettons are configured (add them under jettons:)' : `jettons: names ${names.join(', ')}`}`;
  };
  config.watchJettons.forEach((name, i) => {
    if (!known(name)) ctx.addIssue({ code: 'custom', path: ['watchJettons', i], message: unknown(name) });
  });
  config.watchlist.forEach((entry, index) => {
    entry.jettons?.forEach((name, i) => {
      if (!known(name)) ctx.addIssue({ code: 'custom', path: ['watchlist', index, 'jettons', i], message: unknown(name) });
    });
    for (const name of Object.keys(entry.minJettonBalance ?? {})) {
      const path = ['watchlist', index, 'minJettonBalance', name];
      if (!known(name)) ctx.addIssue({ code: 'custom', path, message: unknown(name) });
      else if (!config.watchJettons.includes(name) && !(entry.jettons ?? []).includes(name)) {
        ctx.addIssue({ code: 'custom', path, message: `${name} is not watched for this wallet: add it to its jettons or to watchJettons` });
      }
    }
  });
  config.watchlistFiles.forEach((file, index) => {
    if (typeof file === 'string') return;
    file.jettons.forEach((name, i) => {
      if (!known(name)) ctx.addIssue({ code: 'custom', path: ['watchlistFiles', index, 'jettons', i], message: unknown(name) });
    });
  });
}

/** The canonical key of an address the schema has already accepted. */
function rawOf(address: string): string {
  const parsed = parseAddress(address);
  if (!parsed.ok) throw new Error(`unreachable: "${address}" passed the schema`);
  return parsed.value.raw;
}

/** The jettons' keys of the config file, and of watchlist entries and files. */
export const JETTONS_CONFIG: ConfigPiece = {
  keys: {
    /** Jettons by the operator's name: master address and decimals; as a list on Config, masters canonical. */
    jettons: z
      .record(jettonName, jettonSchema)
      .default({})
      .transform((jettons): JettonSettings[] =>
        Object.entries(jettons).map(([name, jetton]) => ({
          name,
          master: rawOf(jetton.master),
          masterAsWritten: jetton.master,
          decimals: jetton.decimals ?? null,
        })),
      ),
    /** Jettons watched for every wallet on the watchlist. */
    watchJettons: jettonNames.default([]),
  },
  watchlistKeys: {
    /** Jettons watched for this wallet, besides watchJettons. */
    jettons: jettonNames.optional(),
    /** Alert thresholds in jetton units by jetton name; exported as ton_jetton_min_balance. */
    minJettonBalance: z.record(jettonName, z.number().nonnegative()).optional(),
  },
  watchlistFileKeys: { jettons: jettonNames.default([]) },
  refine: (file, ctx) => checkJettonNames(file as unknown as JettonReferences, ctx),
  printable: (config) => ({
    jettons: config.jettons.map((j) => ({ ...j, decimals: j.decimals ?? "read from the master's metadata (TEP-64) at the first jetton poll" })),
  }),
};

/** The jettons watched for a wallet: `watchJettons`, then its own, each once, in that order. */
export function jettonsOf(config: Pick<Config, 'watchJettons'>, wallet: WatchedWallet): readonly string[] {
  const own = wallet.jettons ?? [];
  if (own.length === 0) return config.watchJettons;
  if (config.watchJettons.length === 0) return own;
  return [...new Set([...config.watchJettons, ...own])];
}
