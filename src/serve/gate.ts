import type { IncomingMessage, ServerResponse } from 'node:http';
import { perObject } from '../domain/per-object.js';
import type { WebConfig } from '../domain/web-config.js';
import { createBasicAuth, type AuthVerdict } from './basic-auth.js';
import type { PasswordChecks } from './password-checks.js';
import { jsonResponse, type ServedResponse } from './response.js';

/**
 * What every request passes before its route: the Host check (listen.allowedHosts), the web
 * config's response headers, and basic auth. `pass` is called when it may be answered;
 * `refuse` with the answer that refuses it otherwise.
 */
export interface Gate {
  check(req: IncomingMessage, res: ServerResponse, pass: () => void, refuse: (response: ServedResponse) => void): void;
}

export interface GateDeps {
  /** The web config in force, read per request (a reload swaps it). */
  readonly web: () => WebConfig | null;
  /** Hosts answered, lowercase (a name or address, with or without its port); empty: any. */
  readonly allowedHosts: () => ReadonlySet<string>;
  /** Where bcrypt runs (a worker thread). */
  readonly passwords: Pick<PasswordChecks, 'compare'>;
  /** The process clock, for the failure throttle. */
  readonly now: () => number;
  readonly logger: { error(context: object, message: string): void };
}

/** What every refused credential gets: the same answer for a wrong user, a wrong password, or none. */
const UNAUTHORIZED = jsonResponse(401, { error: 'unauthorized' }, { 'www-authenticate': 'Basic realm="tonwatch", charset="UTF-8"' });
const AUTH_BUSY = jsonResponse(503, { error: 'too many password checks in progress; retry shortly' }, { 'retry-after': '1' });
const MISDIRECTED = jsonResponse(421, { error: 'this server does not answer for that Host (listen.allowedHosts)' });

export function createGate(deps: GateDeps): Gate {
  const auth = createBasicAuth((password, hash) => deps.passwords.compare(password, hash), deps.now);
  const refusal = (verdict: Exclude<AuthVerdict, true>): ServedResponse => {
    if (verdict === false) return UNAUTHORIZED;
    if (verdict === 'busy') return AUTH_BUSY;
    const retryAfter = String(verdict.throttled);
    return jsonResponse(429, { error: 'too many failed password checks from this address; retry later' }, { 'retry-after': retryAfter });
  };
  return {
    check(req, res, pass, refuse) {
      const hosts = deps.allowedHosts();
      if (hosts.size > 0 && !hostAllowed(req.headers.host, hosts)) {
        refuse(MISDIRECTED);
        return;
      }
      const config = deps.web();
      if (config === null) {
        pass();
        return;
      }
      for (const name in config.headers) res.setHeader(name, config.headers[name] ?? '');
      if (!hasUsers(config)) {
        pass();
        return;
      }
      const verdict = auth.check(config.users, req.headers.authorization, req.socket.remoteAddress ?? '');
      if (verdict === true) pass();
      else if (!(verdict instanceof Promise)) refuse(refusal(verdict));
      else
        verdict.then(
          (ok) => (ok === true ? pass() : refuse(refusal(ok))),
          (err: unknown) => {
            deps.logger.error({ err }, 'password check failed');
            refuse(UNAUTHORIZED);
          },
        );
    },
  };
}

/** Whether a Host header names an allowed host: the whole value (`name:port`), or its name without the port. */
export function hostAllowed(host: string | undefined, allowed: ReadonlySet<string>): boolean {
  if (host === undefined || host === '') return false;
  const value = host.toLowerCase();
  if (allowed.has(value)) return true;
  // `[::1]:10384` → `[::1]`; `name:10384` → `name`; a bare IPv6 address has no port to strip.
  const name = value.startsWith('[') ? value.slice(0, value.indexOf(']') + 1) : value.includes(':') ? value.slice(0, value.lastIndexOf(':')) : value;
  return allowed.has(name) || (name.startsWith('[') && allowed.has(name.slice(1, -1)));
}

/** Whether a web config asks for basic auth (worked out once per config: a reload makes a new one). */
const hasUsers = perObject((config: WebConfig) => Object.keys(config.users).length > 0);
