import type { UpstreamSettings } from '../domain/config.js';
import { httpKind } from './http/index.js';
import type { UpstreamKind, UrlBound } from './kind.js';
import { liteserverKind } from './liteserver/index.js';

/** The upstream kinds, each one module (kind.ts says what differs between them). The first is the default of an entry without `kind`. */
// Each kind takes only settings of its own kind: kindOf() hands each the settings it is for.
export const UPSTREAM_KINDS = [httpKind, liteserverKind] as unknown as readonly UpstreamKind<UpstreamSettings>[];

/** The module of an upstream's kind. */
export function kindOf(settings: UpstreamSettings): UpstreamKind<UpstreamSettings> {
  const found = UPSTREAM_KINDS.find((k) => k.kind === settings.kind);
  if (found === undefined) throw new Error(`unknown upstream kind ${settings.kind}`);
  return found;
}

/** Where an upstream is, as it may be shown (no secret): logs, the status page, check-config. */
export function upstreamLocation(settings: UpstreamSettings): string {
  return kindOf(settings).location(settings);
}

/** The first upstream that carries addresses in its URLs, and its request lines; undefined when none does. */
export function firstUrlBound(upstreams: readonly UpstreamSettings[]): UrlBound | undefined {
  for (const upstream of upstreams) {
    const bound = kindOf(upstream).urlBound?.(upstream);
    if (bound !== undefined) return bound;
  }
  return undefined;
}

/** An upstream's request lines when it carries addresses in its URLs; undefined when it does not. */
export function urlBoundOf(settings: UpstreamSettings | undefined): UrlBound | undefined {
  return settings === undefined ? undefined : kindOf(settings).urlBound?.(settings);
}
