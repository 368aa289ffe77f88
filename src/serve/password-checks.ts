import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * bcrypt comparisons in one worker thread, started at the first check and kept: a check
 * costs tens of milliseconds of CPU, and a flood of wrong guesses would otherwise stall
 * every served request. Checks are answered in the order they were sent. A worker that
 * dies fails the checks it held (each refused), and the next check starts another.
 */
export interface PasswordChecks {
  compare(password: string, hash: string): Promise<boolean>;
  /** Stops the worker; a check after this starts it again. */
  close(): Promise<void>;
}

/**
 * The worker's code: bcryptjs's compareSync on each `{ id, password, hash }`, answered
 * `{ id, ok }`. A script (CommonJS) given the library's path, so it runs the same from
 * the compiled code and from the sources under test.
 */
const WORKER_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const { compareSync } = require(workerData.bcryptjs);
parentPort.on('message', ({ id, password, hash }) => {
  let ok = false;
  try { ok = compareSync(password, hash); } catch { /* a hash bcryptjs cannot read matches no password */ }
  parentPort.postMessage({ id, ok });
});
`;

export function createPasswordChecks(): PasswordChecks {
  let worker: Worker | null = null;
  const pending = new Map<number, (ok: boolean) => void>();
  let nextId = 0;

  const failAll = (): void => {
    for (const answer of pending.values()) answer(false);
    pending.clear();
  };

  const start = (): Worker => {
    const bcryptjs = createRequire(import.meta.url).resolve('bcryptjs');
    const started = new Worker(WORKER_SCRIPT, { eval: true, workerData: { bcryptjs } });
    // The daemon's shutdown, not this thread, decides when the process ends.
    started.unref();
    started.on('message', ({ id, ok }: { id: number; ok: boolean }) => {
      const answer = pending.get(id);
      pending.delete(id);
      answer?.(ok);
    });
    const gone = (): void => {
      if (worker === started) worker = null;
      failAll();
    };
    started.on('error', gone);
    started.on('exit', gone);
    return started;
  };

  return {
    compare(password, hash) {
      worker ??= start();
      const id = nextId++;
      const sent = worker;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        sent.postMessage({ id, password, hash });
      });
    },
    async close() {
      const stopping = worker;
      worker = null;
      failAll();
      if (stopping !== null) await stopping.terminate();
    },
  };
}
