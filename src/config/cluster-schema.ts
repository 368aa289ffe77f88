import * as z from 'zod';
import type { ClusterSettings } from '../domain/config.js';

/**
 * The `cluster` section: replicas sharing one watchlist, one upstream budget and one
 * snapshot through Redis (or Valkey). Absent or null: one process, no Redis.
 */

/** A Redis URL: redis:// or rediss:// (TLS), host required; user and password allowed (redacted wherever it is printed). */
const redisUrl = z.string().superRefine((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'not a URL: expected redis://[user:password@]host[:port][/db] or rediss://…' });
    return;
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    ctx.addIssue({ code: 'custom', message: `the scheme must be redis:// or rediss:// (TLS), not ${url.protocol}//` });
  } else if (url.hostname === '') {
    ctx.addIssue({ code: 'custom', message: 'the URL names no host' });
  } else if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d{1,2}$/.test(url.pathname)) {
    ctx.addIssue({ code: 'custom', message: `the path selects a database by number (/0../15), not "${url.pathname}"` });
  }
});

/** What a cluster's name and a member id may hold: they are parts of Redis keys. */
const keyPart = z.string().regex(/^[A-Za-z0-9_.:-]{1,100}$/, 'letters, digits and _ . : - only, 1 to 100 characters');

export const clusterSchema = z
  .strictObject({
    /** Where the replicas meet: redis://… or rediss://…; `${ENV}` works here as everywhere. */
    redis: redisUrl,
    /** Replicas of one name share one watchlist; several clusters may use one Redis. */
    name: keyPart.default('tonwatch'),
    /** A replica not heard from for this long is no longer a member: its wallets go to the others. */
    memberTtlSeconds: z.number().int().min(2).max(3600).default(10),
    /** This replica's id among the members; default the host name and the listen port. Stable ids keep ownership across restarts. */
    member: keyPart.optional(),
  })
  .nullable()
  .default(null);

type SameKeys<A, B> = [Exclude<keyof A, keyof B>, Exclude<keyof B, keyof A>] extends [never, never] ? true : false;
type Assert<T extends true> = T;
/** The section as parsed is domain/config.ts's ClusterSettings: a key added to one and not the other fails to compile. */
export type ClusterFileMatchesDomain = Assert<SameKeys<NonNullable<z.output<typeof clusterSchema>>, Required<ClusterSettings>>>;
