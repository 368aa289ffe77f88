import type { LiteRequest } from '../../ton/lite-api.js';
import { LiteTransportError, openLiteConnection, type LiteConnection, type LiteEndpoint } from './connection.js';

/**
 * The liteservers of one upstream: each query goes to the next one in turn (round-robin),
 * over a connection opened on first use and kept; a liteserver whose connection failed or
 * timed out is passed over for a while, unless every one of them is.
 */

/** How long a failing liteserver is passed over. */
export const LITESERVER_SKIP_MS = 15_000;

export interface LitePool {
  /** One query to one liteserver, connecting first if needed, all inside timeoutMs. Rejects with LiteTransportError. */
  query(request: LiteRequest, timeoutMs: number, signal?: AbortSignal): Promise<{ readonly answer: Buffer; readonly endpoint: LiteEndpoint }>;
  /** Closes every connection. */
  close(): void;
}

interface Slot {
  readonly endpoint: LiteEndpoint;
  connection: Promise<LiteConnection> | null;
  skipUntil: number;
}

export function createLitePool(endpoints: readonly LiteEndpoint[], now: () => number): LitePool {
  const slots: Slot[] = endpoints.map((endpoint) => ({ endpoint, connection: null, skipUntil: 0 }));
  let next = 0;

  /** The next liteserver in turn that is not being passed over; the one back soonest when all are. */
  const pick = (): Slot => {
    const at = now();
    for (let i = 0; i < slots.length; i += 1) {
      const slot = slots[(next + i) % slots.length] as Slot;
      if (slot.skipUntil <= at) {
        next = (next + i + 1) % slots.length;
        return slot;
      }
    }
    return slots.reduce((a, b) => (b.skipUntil < a.skipUntil ? b : a));
  };

  const connectionOf = (slot: Slot, timeoutMs: number, signal: AbortSignal | undefined): Promise<LiteConnection> => {
    if (slot.connection === null) {
      const opening = openLiteConnection(slot.endpoint, timeoutMs, signal);
      slot.connection = opening;
      // A failed connect is forgotten, so the next query connects afresh.
      opening.catch(() => {
        if (slot.connection === opening) slot.connection = null;
      });
    }
    return slot.connection;
  };

  return {
    async query(request, timeoutMs, signal) {
      if (slots.length === 0) throw new LiteTransportError('network', 'no liteserver configured');
      const slot = pick();
      const started = now();
      try {
        let connection = await connectionOf(slot, timeoutMs, signal);
        if (connection.closed) {
          slot.connection = null;
          connection = await connectionOf(slot, timeoutMs - (now() - started), signal);
        }
        const answer = await connection.query(request, Math.max(1, timeoutMs - (now() - started)), signal);
        return { answer, endpoint: slot.endpoint };
      } catch (cause) {
        const error = cause instanceof LiteTransportError ? cause : new LiteTransportError('network', String(cause), { cause });
        if (error.failure !== 'aborted') {
          // A liteserver that timed out or broke the stream is not asked again for a while,
          // and its connection is not reused: a late answer must not be matched to a new query.
          slot.skipUntil = now() + LITESERVER_SKIP_MS;
          const broken = slot.connection;
          slot.connection = null;
          broken?.then((c) => c.close()).catch(() => undefined);
        }
        throw error;
      }
    },
    close() {
      for (const slot of slots) {
        slot.connection?.then((c) => c.close()).catch(() => undefined);
        slot.connection = null;
      }
    },
  };
}
