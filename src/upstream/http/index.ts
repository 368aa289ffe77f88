import * as z from 'zod';
import { shownUrl } from '../../domain/config.js';
import type { UpstreamKind } from '../kind.js';
import type { HttpUpstreamSettings } from './settings.js';
import { jettonWalletsRequestLineBytes, walletStatesRequestLineBytes } from './urls.js';

/** `kind: http`: a toncenter-compatible API, through undici (upstream.ts). */
export const httpKind: UpstreamKind<HttpUpstreamSettings> = {
  kind: 'http',
  schema: (common) =>
    z.strictObject({
      ...common,
      kind: z.literal('http'),
      /** Base URL; the API paths are appended to it. */
      url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }),
      /** Sent as the X-API-Key header; never logged. Empty means none (`${KEY:-}` with KEY unset). */
      apiKey: z.string().optional(),
    }) as unknown as z.ZodType<HttpUpstreamSettings>,
  files: () => [],
  location: (settings) => shownUrl(settings.url),
  printable: (settings) => ({ ...settings, url: shownUrl(settings.url), ...(settings.apiKey === undefined ? {} : { apiKey: '<redacted>' }) }),
  urlBound: (settings) => ({
    key: settings.url,
    walletStatesLine: (count) => walletStatesRequestLineBytes(settings.url, count),
    jettonWalletsLine: (count) => jettonWalletsRequestLineBytes(settings.url, count),
  }),
  async create(settings, deps) {
    const { createHttpUpstream } = await import('./upstream.js');
    return createHttpUpstream({ ...deps, settings });
  },
};
