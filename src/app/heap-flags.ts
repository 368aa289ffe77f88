/**
 * Once started up, V8's old generation grows at most this much between full collections:
 * a wallet cycle replaces most of the snapshot, and left to V8 the heap held two or three
 * snapshots of garbage. Set after start-up, where a tight limit no longer slows the load
 * (figures: docs/benchmarks.md, "Memory flags").
 */
export const HEAP_GROWING_PERCENT = 20;

/**
 * The V8 flags main.ts sets once started up, given the flags node was started with
 * (`process.execArgv`). A `--heap-growing-percent` given there stands: an operator trades
 * RSS for fewer full collections (docs/deployment.md: replicas of a million wallets).
 */
export function startedUpFlags(execArgv: readonly string[]): string[] {
  const own = execArgv.some((flag) => /^--heap[-_]growing[-_]percent(=|$)/.test(flag));
  return [...(own ? [] : [`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]), '--expose-gc'];
}
