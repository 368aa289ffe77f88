import * as z from 'zod';
import type { LiteserverEndpoint } from './settings.js';
import { liteserverPublicKey } from './public-key.js';

type ConfigProblem = { readonly path: string; readonly message: string };

/**
 * A TON network global config file (`global.config.json`, `testnet-global.config.json`):
 * only its `liteservers` matter here. Each ip is a signed 32-bit integer; `ip >>> 0` is the
 * IPv4 address as a number.
 */

const globalConfigSchema = z.looseObject({
  liteservers: z
    .array(
      z.looseObject({
        ip: z
          .number()
          .int()
          .min(-(2 ** 31))
          .max(2 ** 32 - 1),
        port: z.number().int().min(1).max(65_535),
        id: z.looseObject({ '@type': z.literal('pub.ed25519'), key: liteserverPublicKey }),
      }),
    )
    .min(1, 'the file lists no liteservers'),
});

/** `-1185526007` → `"185.86.79.9"`. */
export function ipv4OfSigned(ip: number): string {
  const n = ip >>> 0;
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

/** The liteservers a global config file lists, or its problems (paths under `where`). */
export function parseGlobalConfig(text: string, where: string, file: string): { liteservers: LiteserverEndpoint[]; problems: ConfigProblem[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    return { liteservers: [], problems: [{ path: where, message: `${file} is not JSON: ${cause instanceof Error ? cause.message : String(cause)}` }] };
  }
  const parsed = globalConfigSchema.safeParse(json);
  if (!parsed.success) {
    return {
      liteservers: [],
      problems: parsed.error.issues.map((issue) => ({ path: where, message: `${file}: ${issue.path.map(String).join('.') || '(top)'}: ${issue.message}` })),
    };
  }
  return {
    liteservers: parsed.data.liteservers.map((l) => ({ host: ipv4OfSigned(l.ip), port: l.port, publicKey: l.id.key })),
    problems: [],
  };
}
