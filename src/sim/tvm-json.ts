import type { TupleItem } from '@ton/core';

/**
 * A result stack as toncenter's runGetMethod writes it (tonlib's rendering, chain-facts.md):
 * top-level entries as `[type, value]` with numbers in lowercase hex, nested entries in
 * TL-JSON with numbers in decimal; a chain of pairs ending in null is a `list` flattened into
 * one `elements` array, and null itself an empty list.
 */

const isList = (item: TupleItem): boolean => item.type === 'null' || (item.type === 'tuple' && item.items.length === 2 && isList(item.items[1] as TupleItem));

const listItems = (item: TupleItem): TupleItem[] => (item.type === 'tuple' ? [item.items[0] as TupleItem, ...listItems(item.items[1] as TupleItem)] : []);

const hexNumber = (value: bigint): string => (value < 0n ? `-0x${(-value).toString(16)}` : `0x${value.toString(16)}`);

const cellJson = (item: { cell: { toBoc(): Buffer } }) => ({ bytes: item.cell.toBoc().toString('base64'), object: {} });

function nested(item: TupleItem): unknown {
  if (isList(item)) return { '@type': 'tvm.stackEntryList', list: { '@type': 'tvm.list', elements: listItems(item).map(nested) } };
  switch (item.type) {
    case 'int':
      return { '@type': 'tvm.stackEntryNumber', number: { '@type': 'tvm.numberDecimal', number: item.value.toString(10) } };
    case 'cell':
      return { '@type': 'tvm.stackEntryCell', cell: { '@type': 'tvm.cell', bytes: item.cell.toBoc().toString('base64') } };
    case 'slice':
      return { '@type': 'tvm.stackEntrySlice', slice: { '@type': 'tvm.slice', bytes: item.cell.toBoc().toString('base64') } };
    case 'tuple':
      return { '@type': 'tvm.stackEntryTuple', tuple: { '@type': 'tvm.tuple', elements: item.items.map(nested) } };
    default:
      throw new Error(`the simulator writes no ${item.type} stack entry`);
  }
}

export function stackJson(items: readonly TupleItem[]): unknown[] {
  return items.map((item) => {
    if (isList(item)) return ['list', { '@type': 'tvm.list', elements: listItems(item).map(nested) }];
    switch (item.type) {
      case 'int':
        return ['num', hexNumber(item.value)];
      case 'cell':
      case 'slice':
        // A slice is sent as a cell, as toncenter does for backward compatibility.
        return ['cell', cellJson(item)];
      case 'tuple':
        return ['tuple', { '@type': 'tvm.tuple', elements: item.items.map(nested) }];
      default:
        throw new Error(`the simulator writes no ${item.type} stack entry`);
    }
  });
}
