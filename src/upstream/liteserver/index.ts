import { isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import type { UpstreamKind } from '../kind.js';
import { parseGlobalConfig } from './global-config.js';
import { liteserverPublicKey } from './public-key.js';
import type { LiteserverUpstreamSettings } from './settings.js';

/** `kind: liteserver`: TON liteservers over ADNL (upstream.ts); its code and @ton/core load with its first call. */
export const liteserverKind: UpstreamKind<LiteserverUpstreamSettings> = {
  kind: 'liteserver',
  schema: (common) =>
    z
      .strictObject({
        ...common,
        kind: z.literal('liteserver'),
        /** A network global config file (global.config.json); relative to the config file. */
        globalConfig: z.string().min(1).optional(),
        liteservers: z
          .array(z.strictObject({ host: z.string().min(1), port: z.number().int().min(1).max(65_535), publicKey: liteserverPublicKey }))
          .min(1, 'at least one liteserver is needed')
          .optional(),
      })
      .superRefine((u, ctx) => {
        if ((u.globalConfig === undefined) === (u.liteservers === undefined)) {
          ctx.addIssue({ code: 'custom', path: ['liteservers'], message: 'give either globalConfig or liteservers, not both and not neither' });
        }
      })
      // The liteservers of a globalConfig are read by resolve(); until then the list is empty.
      .transform((u) => ({ ...u, liteservers: u.liteservers ?? [] })) as unknown as z.ZodType<LiteserverUpstreamSettings>,
  async resolve(settings, { base, readFile, path }) {
    if (settings.globalConfig === undefined) return { settings, problems: [] };
    const file = isAbsolute(settings.globalConfig) ? settings.globalConfig : resolve(base, settings.globalConfig);
    let text: string;
    try {
      text = await readFile(file);
    } catch (cause) {
      return {
        settings,
        problems: [{ path: `${path}.globalConfig`, message: `cannot read ${file}: ${cause instanceof Error ? cause.message : String(cause)}` }],
      };
    }
    const read = parseGlobalConfig(text, `${path}.globalConfig`, file);
    return { settings: { ...settings, globalConfig: file, liteservers: read.liteservers }, problems: read.problems };
  },
  files: (settings) => (settings.globalConfig === undefined ? [] : [settings.globalConfig]),
  location: (settings) => settings.liteservers.map((l) => `adnl://${l.host}:${l.port}`).join(' '),
  printable: (settings) => ({ ...settings }),
  async create(settings, deps) {
    const { createLiteUpstream } = await import('./upstream.js');
    return createLiteUpstream({ ...deps, settings, logger: deps.logger.child({ upstream: settings.name }) });
  },
};
