/** A cron expression whose only constrained field is the second: `*`, `*\/N` or `S`, then five `*`. */
const SECONDS_ONLY = /^(?:\*|\*\/([1-9]\d?)|(\d{1,2})) \* \* \* \* \*$/;

/**
 * The next wall time (ms since epoch) matching a seconds-only cron expression, at a whole
 * second strictly after the second `afterWallMs` falls in, as node-cron reads it; undefined
 * for any other expression. The defaults (`*\/5`, `*\/30` and `0 * * * * *`) are all of this
 * kind, and node-cron's reading builds an Intl.DateTimeFormat on first use (~25 ms, at
 * start, before the first answer); a second of the minute is the same in every time zone
 * in use, so none is needed here. test/domain/schedule.test.ts pins it to node-cron.
 */
export function nextSecondsOnlyMatch(cron: string, afterWallMs: number): number | undefined {
  const match = SECONDS_ONLY.exec(cron.trim());
  if (match === null) return undefined;
  const step = match[1] === undefined ? undefined : Number(match[1]);
  const only = match[2] === undefined ? undefined : Number(match[2]);
  if (only !== undefined && only > 59) return undefined;
  const matches = (second: number): boolean => (only !== undefined ? second === only : step === undefined || second % step === 0);
  let at = (Math.floor(afterWallMs / 1000) + 1) * 1000;
  for (let tries = 0; tries <= 60; tries += 1, at += 1000) if (matches(Math.floor(at / 1000) % 60)) return at;
  return undefined;
}
