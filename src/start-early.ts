import { resolve } from 'node:path';
import { daemonArgs } from './cli-options.js';
import { earlyKey } from './config/early-record.js';
import { readEarly } from './config/start-cache-file.js';
import { startEarlyServer, type EarlyServer } from './serve/early-server.js';
import { peekAhead, readWhole } from './snapshot/atomic-file.js';
import { queueSizesOfFile } from './snapshot/queue-file.js';
import { startFiles } from './start-prefetch.js';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The first stage of a daemon's start, loaded before the rest of the code (main.ts): when
 * the last start with this config kept an early record (config/early-record.ts) and
 * nothing it was made of has changed, listen at once and answer getOutMsgQueueSizes from
 * the persisted queue sizes, holding every other request for the daemon, which takes the
 * server over once loaded (serve/early-server.ts). Null, and nothing done, whenever that
 * cannot be vouched for: no cache or record, a changed byte of the config or web config,
 * a changed variable it refers to, another --web.config.file, no valid queue-size file,
 * the address taken. The daemon's own start then does everything, and says what is wrong.
 */
export async function startEarly(
  argv: readonly string[],
  env: Env,
  cwd: string,
  clock: { readonly now: () => number; readonly wallOffset: () => number },
  version: string,
): Promise<EarlyServer | null> {
  const files = startFiles(argv, env, cwd);
  const args = daemonArgs(argv);
  if (files === null || args === null) return null;
  try {
    const cache = await peekAhead(files.cacheFile);
    if (cache?.kind !== 'bytes') return null;
    const record = readEarly(cache.bytes, files.configPath, version);
    if (record === null) return null;
    const [configBytes, queueBytes, ...webBytes] = await Promise.all([
      readWhole(files.configPath),
      readWhole(record.snapshotFile),
      ...record.webFiles.map((file) => readWhole(file).catch(() => null)),
    ]);
    const webOverride = args.webConfigFile === undefined ? null : resolve(cwd, args.webConfigFile);
    if (earlyKey({ configBytes, env, webOverride, webBytes }) !== record.key) return null;
    const read = queueSizesOfFile(JSON.parse(queueBytes.toString('utf8')));
    if (read === null) return null;
    // On the process clock, as the daemon reads it (snapshot/persist.ts): a time ahead of now is taken as now.
    const queueSizes = { ...read, fetchedAt: Math.min(read.fetchedAt - clock.wallOffset(), clock.now()) };
    return await startEarlyServer({ settings: record, queueSizes, now: clock.now, wallOffset: clock.wallOffset });
  } catch {
    return null;
  }
}
