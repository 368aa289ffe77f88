import type { UpstreamCommon } from '../../domain/config.js';

/** A toncenter-compatible HTTP API (`kind: http`, the default). */
export interface HttpUpstreamSettings extends UpstreamCommon {
  readonly kind: 'http';
  /** Base URL; the API paths are appended to its path, its query comes first in every request's. */
  readonly url: string;
  /** Sent as the X-API-Key header; never logged. Empty means none. */
  readonly apiKey?: string | undefined;
}

declare module '../../domain/config.js' {
  interface UpstreamSettingsByKind {
    http: HttpUpstreamSettings;
  }
}
