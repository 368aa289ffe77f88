/**
 * Shape tests shared by the hand-written decoders (upstream/wallet-states.ts,
 * snapshot/file-format.ts), which must accept only what their zod schemas certainly
 * accept and leave the rest to zod.
 */

/** zod's isObject: what z.object accepts. */
export const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * An ordinary object, as z.record and z.object certainly take it. Objects with an own
 * `constructor` or `__proto__` key are left to zod, whose plain-object test and copying
 * treat them specially.
 */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, 'constructor') && !Object.hasOwn(value, '__proto__');
}
