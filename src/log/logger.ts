import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths pino blanks out wherever they appear: API keys, Authorization headers and the web
 * config's bcrypt hashes never reach a log line (nothing logs them today; this is the net).
 */
export const REDACTED_PATHS = [
  'apiKey',
  '*.apiKey',
  'upstreams[*].apiKey',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  'config.upstreams[*].apiKey',
  'headers.authorization',
  '*.headers.authorization',
  'users',
  '*.users',
  'web.users',
  '*.web.users',
  'basic_auth_users',
];

/** A JSON logger writing to `destination` (stdout in main.ts, a sink in tests). */
export function createLogger(level: string, destination: DestinationStream): Logger {
  return pino({ level, base: { name: 'tonwatch' }, redact: { paths: REDACTED_PATHS, censor: '<redacted>' } }, destination);
}
