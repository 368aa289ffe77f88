import type * as z from 'zod';
import type { UpstreamSettings } from '../domain/config.js';
import type { UpstreamCalls, UpstreamCallsDeps } from './calls.js';

/**
 * What differs between upstream kinds, in one module per kind (http/, liteserver/), listed
 * in kinds.ts: its entry of `upstreams:` in the config file, the files it reads, how it
 * is shown, and its calls. Adding a kind is adding such a module and its line in kinds.ts.
 */
export interface UpstreamKind<S extends UpstreamSettings> {
  readonly kind: S['kind'];
  /** The entry's schema (strict), given the keys every kind has; its output is S, but for what `resolve` fills in. */
  schema(common: CommonKeys): z.ZodType<S>;
  /** Reads what the entry names (files, relative to the config file's folder): the settings whole, or problems under `path`. */
  resolve?(settings: S, files: KindFiles): Promise<{ settings: S; problems: readonly { path: string; message: string }[] }>;
  /** Files it was read from besides the config file: a change to any reloads the config. */
  files(settings: S): readonly string[];
  /** Where it is, as it may be shown (no secret): logs, the status page, check-config. */
  location(settings: S): string;
  /** The entry as check-config prints it, secrets redacted. */
  printable(settings: S): Readonly<Record<string, unknown>>;
  /** When it carries addresses in a request's URL: how long the request line of `count` addresses is, per call, and what it depends on. */
  urlBound?(settings: S): UrlBound;
  /** Its calls (calls.ts): made on first use, so a kind's code loads only where it is configured. */
  create(settings: S, deps: UpstreamCallsDeps): Promise<UpstreamCalls>;
}

/** The zod shapes of the keys every upstream has: name, rps, timeoutMs. */
export type CommonKeys = Readonly<Record<'name' | 'rps' | 'timeoutMs', z.ZodType>>;

export interface KindFiles {
  /** The config file's folder: relative paths are relative to it. */
  readonly base: string;
  readonly readFile: (path: string) => Promise<string>;
  /** Where the entry is in the config file (`upstreams.2`), for problems. */
  readonly path: string;
}

/** The request lines of an upstream that carries addresses in its URLs (a proxy in front of it refuses long ones). */
export interface UrlBound {
  /** What the lengths depend on: batch sizes learnt against another key start again. */
  readonly key: string;
  walletStatesLine(count: number): number;
  jettonWalletsLine(count: number): number;
}
