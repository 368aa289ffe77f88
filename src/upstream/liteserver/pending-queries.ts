import { LiteTransportError } from './connection-error.js';

/**
 * The queries one connection has sent and not yet had answered, by query id: each with its
 * own deadline and abort signal, and all failed at once when the connection goes.
 */
export interface PendingQueries {
  /** Registers `queryId`, calls `send`, and resolves with its answer (or rejects: timeout, abort, the connection failing). */
  ask(queryId: string, send: () => void, timeoutMs: number, signal?: AbortSignal): Promise<Buffer>;
  /** The answer to `queryId` arrived (one nobody waits for any more is dropped). */
  answer(queryId: string, answer: Buffer): void;
  /** The connection failed: every waiting query fails with it. */
  failAll(error: LiteTransportError): void;
}

interface Pending {
  readonly resolve: (answer: Buffer) => void;
  readonly reject: (error: LiteTransportError) => void;
}

export function createPendingQueries(): PendingQueries {
  const pending = new Map<string, Pending>();
  return {
    ask(queryId, send, timeoutMs, signal) {
      return new Promise<Buffer>((resolve, reject) => {
        const done = (): void => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          pending.delete(queryId);
        };
        const onAbort = (): void => {
          done();
          reject(new LiteTransportError('aborted', 'aborted'));
        };
        const timer = setTimeout(() => {
          done();
          reject(new LiteTransportError('timeout', `no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(queryId, {
          resolve: (answer) => {
            done();
            resolve(answer);
          },
          reject: (error) => {
            done();
            reject(error);
          },
        });
        signal?.addEventListener('abort', onAbort, { once: true });
        send();
      });
    },
    answer(queryId, answer) {
      pending.get(queryId)?.resolve(answer);
    },
    failAll(error) {
      for (const p of [...pending.values()]) p.reject(error);
      pending.clear();
    },
  };
}
