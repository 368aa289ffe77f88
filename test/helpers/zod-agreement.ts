import { expect } from 'vitest';
import type { ZodSafeParseResult, ZodType } from 'zod';

/**
 * For property tests of a hand-written decoder against the zod schema it stands in for
 * (upstream/wallet-states.ts, snapshot/file-format.ts): mutations of a valid value, and
 * the check that the decoder agrees with zod on every one.
 */

/** As a mutation's value: delete the key. */
export const DELETE = Symbol('delete');

export const clone = <T>(value: T): T => structuredClone(value);

/** Sets `key` to a copy of `value`, or deletes it for DELETE. */
export function set(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value === DELETE) delete target[key];
  else target[key] = clone(value);
}

/** How a mutation's value is named in a case: `deleted`, or its JSON. */
export const shown = (value: unknown): string => (value === DELETE ? 'deleted' : String(JSON.stringify(value)));

/**
 * On every case: when the quick decoder accepts, zod accepts and gives the same value,
 * field order included; whichever path `decode` takes, its verdict is zod's, and a
 * refusal carries zod's own issues. Returns how many cases there were and how many the
 * quick path took.
 */
export function expectAgreement<T>(
  cases: Iterable<[string, unknown]>,
  decoders: { schema: ZodType<T>; quick: (value: unknown) => T | null; decode: (value: unknown) => ZodSafeParseResult<T> },
): { cases: number; fast: number } {
  let fast = 0;
  let count = 0;
  for (const [name, value] of cases) {
    count += 1;
    const reference = decoders.schema.safeParse(clone(value));
    const quick = decoders.quick(clone(value));
    if (quick !== null) {
      fast += 1;
      expect(reference.success, name).toBe(true);
      expect(quick, name).toStrictEqual(reference.data);
      expect(JSON.stringify(quick), name).toBe(JSON.stringify(reference.data));
    }
    const decoded = decoders.decode(clone(value));
    expect(decoded.success, name).toBe(reference.success);
    if (!decoded.success) expect(decoded.error.issues, name).toStrictEqual(reference.error?.issues);
  }
  return { cases: count, fast };
}

/**
 * A case for each value of `values`: a fresh copy of `base` with that value set at its key
 * (DELETE: the key deleted) in the object `place` finds in the copy, named
 * `<prefix><key> = <value>`.
 */
export function* mutated<T>(
  base: T,
  values: Readonly<Record<string, readonly unknown[]>>,
  place: (copy: T) => Record<string, unknown> = (copy) => copy as Record<string, unknown>,
  prefix = '',
): Generator<[string, unknown]> {
  for (const [key, list] of Object.entries(values)) {
    for (const value of list) {
      const copy = clone(base);
      set(place(copy), key, value);
      yield [`${prefix}${key} = ${shown(value)}`, copy];
    }
  }
}

/** Whole files that are no file at all: null, an array, a string, a number, an empty object. */
export function* notAFile(): Generator<[string, unknown]> {
  for (const value of [null, [], 'x', 1, {}]) yield [`file = ${JSON.stringify(value)}`, value];
}
