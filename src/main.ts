#!/usr/bin/env -S node --max-semi-space-size=8
/**
 * (The shebang's --max-semi-space-size=8: a young generation of 8 MiB semi-spaces, half of
 * what Node 20 allows on 64-bit systems. A poll cycle's short-lived objects still die there,
 * and the process keeps 16 MB less resident: RSS of a daemon polling 10,000 wallets peaked
 * at 138-146 MB against 160-172 MB with 16 MiB semi-spaces, 320-344 against 363 MB at
 * 100,000; v2 req/s and poll processing were the same within the machine's noise. An
 * earlier build fixed the semi-spaces at 16 MiB from the start because some processes
 * served v2 at half speed; the cause was nextTick's inline caches (tick-object.ts), not
 * the young generation. npm start, npm run demo, the Docker image and the benchmarks pass
 * the same flags; test/node-flags.test.ts checks that they agree.)
 *
 * The composition root: the only module that reads process.env/argv, installs signal
 * handlers and calls process.exit. Everything else gets these as parameters.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runCli } from './cli.js';
import { createProcessClock } from './domain/clock.js';
import { EXIT_FAILURE } from './run.js';
import { keepTickObject } from './tick-object.js';

/**
 * One of Node's tick objects, kept for the life of the process before anything can run a
 * full collection, so that process.nextTick stays on V8's fast path (tick-object.ts says
 * why). Exported so that the module's binding, and with it the object, is kept.
 */
export const keptTickObject = keepTickObject();

/**
 * Once started up, V8's old generation may grow by this much over what the last full
 * collection left before the next one starts (V8 picks 10-300 %, from its own measure
 * of the collector's speed). A wallet cycle replaces most of the snapshot's objects, so
 * left to V8 the heap held two or three snapshots' worth of garbage between collections
 * (a polling daemon at 100,000 wallets peaked at 560 MB). Set after start-up, not on the
 * command line: while the persisted snapshot loads, every step of a tight limit is a full
 * collection, and start-up was ~10 % slower. The collection itself runs concurrently
 * with serving; the README's Benchmarks section has the figures.
 */
const HEAP_GROWING_PERCENT = 20;

/** A stop that hangs past this is cut short (exit 1): shutdown must finish within 10 s. */
const SHUTDOWN_LIMIT_MS = 10_000;

const terminated = new Promise<string>((resolve) => {
  const onSignal = (signal: NodeJS.Signals): void => {
    // A second signal while stopping means "now".
    process.once(signal, () => process.exit(EXIT_FAILURE));
    setTimeout(() => {
      process.stderr.write(`tonwatch: shutdown took longer than ${SHUTDOWN_LIMIT_MS} ms; exiting\n`);
      process.exit(EXIT_FAILURE);
    }, SHUTDOWN_LIMIT_MS).unref();
    resolve(signal);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
});

process.on('unhandledRejection', (reason) => {
  process.stderr.write(`tonwatch: unhandled rejection: ${reason instanceof Error ? (reason.stack ?? reason.message) : String(reason)}\n`);
});

// The one place the clocks are read: the wall clock once, then the monotonic clock (domain/clock.ts says why).
const clock = createProcessClock(
  () => Date.now(),
  () => performance.now(),
);

runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  now: clock.now,
  wallOffset: clock.wallOffset,
  nodeVersion: process.version,
  terminated,
  onReloadSignal: (handler) => process.on('SIGHUP', handler),
  startedUp: () => {
    setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  },
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`tonwatch: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
