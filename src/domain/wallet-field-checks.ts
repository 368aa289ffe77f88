import * as z from 'zod';
import { WALLET_STATE_FIELDS, type WalletFieldKind } from './wallet-state.js';

/**
 * What a value of each wallet field kind must look like, twice side by side: as a zod
 * schema (the reference, which words the errors) and as a hand-written check for the hot
 * decoders (upstream walletStates answers, the snapshot file at start). Both decoders are
 * built from WALLET_STATE_FIELDS with these, so they cannot drift apart field by field.
 */

const DIGITS = /^\d+$/;

/** The zod schema of one field's value (neither null nor absent). */
export function fieldSchema(kind: WalletFieldKind, name: string): z.ZodType {
  switch (kind) {
    case 'string':
      return z.string();
    case 'decimal':
      return z.string().regex(DIGITS, `${name} is not a decimal integer`);
    case 'boolean':
      return z.boolean();
    case 'integer':
      // zod 4's int() is the safe-integer range, as Number.isSafeInteger below.
      return z.number().int();
    case 'currencies':
      return z.record(z.string(), z.string().regex(DIGITS, `${name} holds an amount that is not a decimal integer`));
  }
}

/** /^\d+$/ without the regex engine: this runs a few times per wallet. */
export function isDigits(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
  }
  return true;
}

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

function isCurrencyAmounts(value: unknown): boolean {
  if (!isPlainRecord(value)) return false;
  for (const key in value) if (!isDigits(value[key])) return false;
  return true;
}

/** The hand-written checks: true only for what fieldSchema() certainly accepts unchanged. */
export const FIELD_CHECKS: Readonly<Record<WalletFieldKind, (value: unknown) => boolean>> = {
  string: (value) => typeof value === 'string',
  decimal: isDigits,
  boolean: (value) => typeof value === 'boolean',
  integer: Number.isSafeInteger,
  currencies: isCurrencyAmounts,
};

/** Each field with its check, in WALLET_STATE_FIELDS order, for the decoders' loops. */
export const WALLET_FIELD_CHECKS: readonly { readonly name: string; readonly required: boolean; readonly check: (value: unknown) => boolean }[] =
  WALLET_STATE_FIELDS.map((field) => ({ name: field.name, required: field.required, check: FIELD_CHECKS[field.kind] }));

/** A zod object shape of the twelve fields, each made optional by `optional` unless required. */
export function walletFieldsShape(optional: (schema: z.ZodType) => z.ZodType): Record<string, z.ZodType> {
  return Object.fromEntries(
    WALLET_STATE_FIELDS.map((field) => {
      const schema = fieldSchema(field.kind, field.name);
      return [field.name, field.required ? schema : optional(schema)];
    }),
  );
}
