import * as z from 'zod';
import { addressString } from '../../config/address-schema.js';

/** The operator's name for a jetton: the `jetton` label. */
export const jettonName = z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,31}$/, 'a jetton name is a letter then up to 31 letters, digits, _ . or -');
export const jettonNames = z.array(jettonName).max(64);

export const jettonSchema = z.strictObject({
  /** The jetton master's address, any form. */
  master: addressString,
  /** Digits after the point (USD₮: 6); left out, read from the master's metadata (TEP-64). */
  decimals: z.number().int().min(0, 'decimals must be 0..255').max(255, 'decimals must be 0..255').optional(),
});

/** A watchlist file: a path, or a path with the jettons watched for each of its addresses. */
export const watchlistFileSchema = z.union([
  z.string().min(1),
  z.strictObject({
    file: z.string().min(1),
    jettons: jettonNames.default([]),
  }),
]);

/** What checkJettonNames reads of the parsed file. */
interface JettonReferences {
  readonly jettons: Readonly<Record<string, unknown>>;
  readonly watchJettons: readonly string[];
  readonly watchlist: readonly { readonly jettons?: readonly string[] | undefined; readonly minJettonBalance?: Readonly<Record<string, number>> | undefined }[];
  readonly watchlistFiles: readonly (string | { readonly jettons: readonly string[] })[];
}

/**
 * Every jetton name used (watchJettons, entries' jettons and thresholds, files' jettons) is
 * one `jettons` defines; a threshold's jetton is watched for its entry.
 */
export function checkJettonNames(config: JettonReferences, ctx: z.RefinementCtx): void {
  const known = (name: string): boolean => Object.hasOwn(config.jettons, name);
  const unknown = (name: string): string => {
    const names = Object.keys(config.jettons);
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
