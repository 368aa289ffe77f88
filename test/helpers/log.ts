import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { REDACTED_PATHS } from '../../src/log/logger.js';

/** A logger writing JSON lines into memory, with the production redaction rules. */
export function createLogSink(level = 'debug'): { logger: Logger; lines: () => Record<string, unknown>[]; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  const logger = pino({ level, redact: { paths: REDACTED_PATHS, censor: '<redacted>' } }, stream);
  const text = (): string => chunks.join('');
  return {
    logger,
    text,
    lines: () =>
      text()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
