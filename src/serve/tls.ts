import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { TLSSocket, TlsOptions } from 'node:tls';
import type { Logger } from 'pino';
import { secureContextOptions, type TlsSettings } from '../domain/web-config.js';

/**
 * exporter-toolkit's TLS settings on Node's TLS server. Go's client_auth_type values map to
 * requestCert/rejectUnauthorized where Node has them; the rest (a certificate required but
 * not verified, verified only if given, allowed SANs) is checked once the handshake is done.
 */

/**
 * An HTTPS server for `tls`. A reload's new certificates and client policy (read through
 * `current`) apply from the next connection on, as exporter-toolkit reads its file per
 * connection; connections whose client certificate the policy refuses are closed after
 * the handshake.
 */
export function createTlsServer(
  options: ServerOptions,
  tls: TlsSettings,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  current: () => TlsSettings | null,
  logger: Pick<Logger, 'debug'>,
): Server {
  const server = createHttpsServer({ ...options, ...serverTlsOptions(tls) }, handle);
  let applied = tls;
  server.prependListener('connection', () => {
    const next = current();
    if (next !== null && next !== applied) {
      applyTls(server, next);
      applied = next;
    }
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    const problem = clientCertificateProblem(socket, applied);
    if (problem !== null) {
      logger.debug({ remote: socket.remoteAddress, problem }, 'TLS connection refused');
      socket.destroy();
    }
  });
  server.on('tlsClientError', (err: Error & { code?: string }, socket: TLSSocket) => {
    logger.debug({ remote: socket.remoteAddress, code: err.code, reason: err.message }, 'TLS handshake failed');
  });
  // https.Server has http.Server's request-handling surface (close, closeIdleConnections, …).
  return server;
}

/** The server options for `tls`: certificates, versions, ciphers, and whether to ask for a client certificate. */
export function serverTlsOptions(tls: TlsSettings): TlsOptions {
  return {
    ...secureContextOptions(tls),
    requestCert: tls.clientAuth !== 'NoClientCert',
    rejectUnauthorized: tls.clientAuth === 'RequireAndVerifyClientCert',
  };
}

/** Swaps a running server's certificates and client-certificate policy (new connections get them). */
export function applyTls(server: HttpsServer, tls: TlsSettings): void {
  server.setSecureContext(serverTlsOptions(tls));
  // setSecureContext takes the context; the policy is the server's own.
  const options = serverTlsOptions(tls);
  Object.assign(server, { requestCert: options.requestCert, rejectUnauthorized: options.rejectUnauthorized });
}

/** Why a finished handshake must not be served under `tls`, or null when it may. */
export function clientCertificateProblem(socket: TLSSocket, tls: TlsSettings): string | null {
  if (tls.clientAuth === 'NoClientCert' || tls.clientAuth === 'RequestClientCert') return null;
  const certificate = socket.getPeerCertificate();
  const given = certificate !== null && Object.keys(certificate).length > 0;
  if (!given) return tls.clientAuth === 'VerifyClientCertIfGiven' ? null : 'no client certificate';
  if ((tls.clientAuth === 'VerifyClientCertIfGiven' || tls.clientAuth === 'RequireAndVerifyClientCert') && !socket.authorized) {
    return `client certificate not verified: ${String(socket.authorizationError)}`;
  }
  if (tls.clientAllowedSans !== undefined) {
    const sans = subjectAltNames(certificate.subjectaltname);
    if (!sans.some((san) => tls.clientAllowedSans?.includes(san))) return 'client certificate has none of client_allowed_sans';
  }
  return null;
}

/** The values of a certificate's subjectaltname (`DNS:a, IP Address:127.0.0.1, email:x, URI:y`). */
export function subjectAltNames(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  return text.split(', ').map((entry) => entry.slice(entry.indexOf(':') + 1));
}
