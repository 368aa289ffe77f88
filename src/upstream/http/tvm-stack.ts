import { Cell, type TupleItem } from '@ton/core';

/**
 * A get-method's stack as toncenter's runGetMethod writes it, read into @ton/core's items
 * (chain-facts.md, "runGetMethod"): at the top level `[type, value]` pairs with numbers in
 * hex (`["num","-0x1f"]`), nested elements in tonlib's TL-JSON with numbers in decimal. A
 * list (tonlib flattens a chain of pairs ending in null into one `elements` array, and
 * renders null as an empty list) is put back into nested pairs, so that both upstream kinds
 * give the same items: `[a, b]` becomes `(a, (b, null))`.
 */

export class StackFormatError extends Error {
  override readonly name = 'StackFormatError';
}

const cellOf = (bytes: unknown): Cell => {
  if (typeof bytes !== 'string') throw new StackFormatError('a cell without bytes');
  const [root] = Cell.fromBoc(Buffer.from(bytes, 'base64'));
  if (root === undefined) throw new StackFormatError('an empty cell BoC');
  return root;
};

const numberOf = (text: unknown): bigint => {
  if (typeof text !== 'string' || !/^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(text)) throw new StackFormatError(`not a number: ${JSON.stringify(text)}`);
  return text.startsWith('-') ? -BigInt(text.slice(1)) : BigInt(text);
};

/** Items of a list, as nested pairs ending in null. */
const pairs = (items: readonly TupleItem[]): TupleItem =>
  items.reduceRight<TupleItem>((rest, item) => ({ type: 'tuple', items: [item, rest] }), { type: 'null' });

const record = (value: unknown): Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StackFormatError(`not an object: ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
};

const elementsOf = (value: unknown): unknown[] => {
  const elements = record(value)['elements'];
  if (!Array.isArray(elements)) throw new StackFormatError('a tuple or list without elements');
  return elements;
};

/** One nested element (tonlib's TL-JSON). */
function nested(value: unknown): TupleItem {
  const entry = record(value);
  switch (entry['@type']) {
    case 'tvm.stackEntryNumber':
      return { type: 'int', value: numberOf(record(entry['number'])['number']) };
    case 'tvm.stackEntryCell':
      return { type: 'cell', cell: cellOf(record(entry['cell'])['bytes']) };
    case 'tvm.stackEntrySlice':
      return { type: 'slice', cell: cellOf(record(entry['slice'])['bytes']) };
    case 'tvm.stackEntryTuple':
      return { type: 'tuple', items: elementsOf(entry['tuple']).map(nested) };
    case 'tvm.stackEntryList':
      return pairs(elementsOf(entry['list']).map(nested));
    default:
      throw new StackFormatError(`an element of type ${JSON.stringify(entry['@type'])}`);
  }
}

/** One top-level entry: `[type, value]`. */
function topLevel(entry: unknown): TupleItem {
  if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string')
    throw new StackFormatError(`not a [type, value] entry: ${JSON.stringify(entry)}`);
  const [type, value] = entry as [string, unknown];
  switch (type) {
    case 'num':
    case 'number':
      return { type: 'int', value: numberOf(value) };
    case 'cell':
      return { type: 'cell', cell: cellOf(record(value)['bytes']) };
    case 'slice':
      return { type: 'slice', cell: cellOf(record(value)['bytes']) };
    case 'tuple':
      return { type: 'tuple', items: elementsOf(value).map(nested) };
    case 'list':
      return pairs(elementsOf(value).map(nested));
    case 'null':
      return { type: 'null' };
    default:
      throw new StackFormatError(`a stack entry of type ${JSON.stringify(type)}`);
  }
}

/** The result stack of a runGetMethod answer, the first value returned first. Throws StackFormatError. */
export function readStack(entries: readonly unknown[]): TupleItem[] {
  return entries.map(topLevel);
}
