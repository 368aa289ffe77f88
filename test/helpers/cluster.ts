import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort, startTonwatch, type RunningProcess } from './process.js';

/** A cluster replica: a real tonwatch process on loopback. */
export interface StartedReplica {
  readonly port: number;
  readonly url: string;
  readonly proc: RunningProcess;
}

/**
 * Starts replica `id` of cluster `cluster.name` in `dir/<id>/`: its config is a listen line
 * on a free port, `body` (upstreams, schedules, snapshot, watchlist) and the cluster
 * section, Redis from REDIS_URL; resolves once it has started.
 */
export async function startReplica(options: {
  readonly dir: string;
  readonly id: string;
  readonly redisUrl: string;
  readonly cluster: { readonly name: string; readonly memberTtlSeconds: number };
  readonly body: string;
}): Promise<StartedReplica> {
  const { dir, id, cluster } = options;
  const port = await freePort();
  const home = join(dir, id);
  await mkdir(home, { recursive: true });
  const config = join(home, 'tonwatch.yml');
  await writeFile(
    config,
    `listen: { host: 127.0.0.1, port: ${port} }
${options.body.trim()}
cluster: { redis: "\${REDIS_URL}", name: ${cluster.name}, memberTtlSeconds: ${cluster.memberTtlSeconds}, member: ${id} }
`,
  );
  const proc = startTonwatch(['--config', config], { REDIS_URL: options.redisUrl });
  await proc.waitFor(/"msg":"tonwatch started"/);
  return { port, url: `http://127.0.0.1:${port}`, proc };
}
