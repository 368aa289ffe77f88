#!/usr/bin/env -S node --max-semi-space-size=8
/**
 * The shebang's --max-semi-space-size=8 keeps the young generation small: the RSS targets
 * need it (figures: docs/benchmarks.md, "Memory flags"; test/node-flags.test.ts keeps npm
 * start, the demo, the image and the benchmarks on the same flags).
 *
 * The composition root: the only module that reads process.env/argv, installs signal
 * handlers and calls process.exit. Everything else gets these as parameters.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runCli } from './app/cli.js';
import { createProcessClock } from './domain/clock.js';
import { EXIT_FAILURE } from './app/exit-codes.js';
import { keepTickObject } from './app/tick-object.js';
import { startedUpFlags } from './app/heap-flags.js';

/**
 * One of Node's tick objects, kept for the life of the process before anything can run a
 * full collection, so that process.nextTick stays on V8's fast path (tick-object.ts says
 * why). Exported so that the module's binding, and with it the object, is kept.
 */
export const keptTickObject = keepTickObject();

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
    for (const flag of startedUpFlags(process.execArgv)) setFlagsFromString(flag);
    (runInNewContext('gc') as () => void)();
  },
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`tonwatch: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
