import type { ConfigPiece } from '../../config/piece.js';

declare module '../../domain/config.js' {
  interface Schedules {
    /** When the queue sizes are polled. Default every 5 s. */
    readonly queueSizes: string;
  }
}

/** The queue sizes' keys of the config file. */
export const QUEUE_SIZES_CONFIG: ConfigPiece = { schedules: { queueSizes: '*/5 * * * * *' } };
