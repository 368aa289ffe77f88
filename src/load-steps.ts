/**
 * Parts of the code main.ts loads one at a time, each on its own turn of the event loop,
 * before the rest, while a start answers early (start-early.ts): a request that comes in
 * meanwhile waits for one part at most, not for all of the code at once. Each is a module
 * of ours that imports one of the large libraries (node-cron, pino, prom-client, zod), so
 * that the bundle splits each library off as the rest of the code uses it.
 */
export const LOAD_STEPS: readonly (() => Promise<unknown>)[] = [
  // The shortest first (~5 and ~15 ms here): the first request after listening, usually
  // a few milliseconds behind, comes in while the parts are still short.
  () => import('./poll/scheduler.js'),
  () => import('./logger.js'),
  () => import('./metrics/registry.js'),
  () => import('./config/schema.js'),
];
