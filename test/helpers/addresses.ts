/**
 * Distinct canonical raw addresses for tests: `0:` and the number in uppercase hex, padded
 * to 64 digits with `fill` ('0' by default; another fill gives a disjoint run, for
 * accounts the simulator does not know).
 */
export function rawAddress(i: number, fill = '0'): string {
  return `0:${i.toString(16).toUpperCase().padStart(64, fill)}`;
}

/** `count` distinct raw addresses, numbered from 1. */
export function rawAddresses(count: number): string[] {
  return Array.from({ length: count }, (_, i) => rawAddress(i + 1));
}
