import type { Server } from 'node:http';
import type { AddressInfo, Server as NetServer } from 'node:net';

/** Listening and stopping, apart from building (serve/server.ts): tests listen on port 0. */

export function listen(server: NetServer, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** How often, while closing, connections that have gone idle are closed. */
const IDLE_SWEEP_MS = 25;

/**
 * Stops accepting, lets in-flight requests finish for up to graceMs, then cuts the rest.
 * A keep-alive connection (Prometheus keeps one per target) is closed as soon as its
 * request is answered, not when its keep-alive runs out.
 */
export function closeServer(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    sweep.unref();
    server.close(() => {
      clearTimeout(force);
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}
