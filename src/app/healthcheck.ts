import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Config } from '../domain/config.js';

/**
 * `tonwatch healthcheck`: the container's liveness check, with no curl in the image. It
 * reads the same config as the daemon, so it asks the port, scheme and address the daemon
 * really listens on. Alive means the daemon answers: 200 from /healthz, or 401 when basic
 * auth is on (the check knows no password), or a TLS alert when a client certificate is
 * required (it has none). Certificates are not verified: this is loopback, and the
 * question is whether the process serves, not who it is.
 */

export interface HealthcheckResult {
  readonly healthy: boolean;
  readonly detail: string;
}

/** Where to reach a server listening on `host`: a wildcard address means loopback. */
export function loopbackFor(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host;
}

export function checkHealth(config: Config, timeoutMs = 3000): Promise<HealthcheckResult> {
  const tls = config.web?.tls != null;
  const host = loopbackFor(config.listen.host);
  const url = `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${config.listen.port}/healthz`;
  return new Promise((resolve) => {
    const options = { host, port: config.listen.port, path: '/healthz', method: 'GET', timeout: timeoutMs, ...(tls ? { rejectUnauthorized: false } : {}) };
    const req = (tls ? httpsRequest : httpRequest)(options, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      if (status === 200) resolve({ healthy: true, detail: `${url}: 200` });
      else if (status === 401) resolve({ healthy: true, detail: `${url}: 401 (basic auth is on; the daemon answers)` });
      else resolve({ healthy: false, detail: `${url}: ${status}` });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: Error & { code?: string }) => {
      if (tls && err.code !== undefined && /^ERR_SSL_.*ALERT/.test(err.code)) {
        resolve({ healthy: true, detail: `${url}: the daemon answered with a TLS alert (${err.code}: client certificates are required)` });
      } else resolve({ healthy: false, detail: `${url}: ${err.code ?? err.message}` });
    });
    req.end();
  });
}
