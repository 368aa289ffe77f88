import type { WatchedValidator } from './config.js';
import type { ValidatorsSnapshot } from './types.js';

/**
 * A watched validator's public key: as configured, or found by its ADNL address in the sets
 * (newest first) and the open election; null when it is in none of them.
 */
export function watchedKey(v: ValidatorsSnapshot, validator: WatchedValidator): string | null {
  if (validator.publicKey !== null) return validator.publicKey;
  for (const set of [v.sets.next, v.sets.current, v.sets.previous]) {
    const found = set?.validators.find((d) => d.adnl === validator.adnl);
    if (found !== undefined) return found.publicKey;
  }
  return v.election?.participants.find((p) => p.adnl === validator.adnl)?.publicKey ?? null;
}
