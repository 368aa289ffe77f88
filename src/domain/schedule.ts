/** Schedules the config gives in seconds, as the cron expressions the scheduler reads. */

/** The node-cron expression of a lag check every `seconds`; null for none (0); undefined when cron cannot express it. */
export function lagCheckCron(seconds: number): string | null | undefined {
  if (seconds === 0) return null;
  if (seconds < 60 && 60 % seconds === 0) return `*/${seconds} * * * * *`;
  if (seconds === 60) return '0 * * * * *';
  if (seconds % 60 === 0 && 60 % (seconds / 60) === 0) return seconds === 3600 ? '0 0 * * * *' : `0 */${seconds / 60} * * * *`;
  return undefined;
}
