import type { SlotLimits } from './connection-slots.js';

/**
 * Request line plus headers. A walletStates GET with 1024 raw addresses, each `address=`
 * repeated and `:` percent-encoded, is about 80 KiB; this leaves room for proxies' headers.
 */
export const MAX_HEADER_BYTES = 128 * 1024;

/** Bounds on what clients may hold; read when used, so a reload applies them. */
export interface ConnectionLimits extends SlotLimits {
  /** A response not taken by the client within this many ms is cut. */
  readonly sendTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 1000,
  maxConnectionsPerClient: 500,
  tlsHandshakeTimeoutMs: 10_000,
  sendTimeoutMs: 60_000,
};
