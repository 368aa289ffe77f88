/**
 * Parts of the code main.ts loads one at a time, each on its own turn of the event loop,
 * before the rest, while a start answers early (start-early.ts): a request that comes in
 * meanwhile waits for one part at most, not for all of the code at once. Each is a module
 * of ours that imports one of the large libraries (zod, pino, prom-client, node-cron), so
 * that the bundle splits each library off as the rest of the code uses it.
 */
export const LOAD_STEPS: readonly (() => Promise<unknown>)[] = [
  () => import('./config/schema.js'),
  () => import('./logger.js'),
  () => import('./metrics/registry.js'),
  () => import('./poll/scheduler.js'),
];
