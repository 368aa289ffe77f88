/**
 * One copy of each value that repeats across wallets (status, wallet type, code hash; an
 * address book entry's lists of names): 100,000 states hold a handful of strings and arrays
 * instead of 300,000, and the parsed copies die young. Bounded: past the limits, new values
 * are kept as they came. Owned by whoever keeps the states it interns for as long as they
 * live (the wallet poll, for the life of the daemon).
 */
export interface Interning {
  string(value: string): string;
  /** A frozen shared copy of a list of strings; any other list as it is. */
  list(list: readonly unknown[]): readonly unknown[];
}

export function createInterning(limits: { readonly strings: number; readonly lists: number } = { strings: 4096, lists: 1024 }): Interning {
  const strings = new Map<string, string>();
  const lists = new Map<string, readonly string[]>();
  return {
    string(value) {
      const known = strings.get(value);
      if (known !== undefined) return known;
      if (strings.size < limits.strings) strings.set(value, value);
      return value;
    },
    list(list) {
      if (!list.every((item): item is string => typeof item === 'string')) return list;
      const key = JSON.stringify(list);
      const known = lists.get(key);
      if (known !== undefined) return known;
      if (lists.size >= limits.lists) return list;
      const own = Object.freeze(JSON.parse(key) as string[]);
      lists.set(key, own);
      return own;
    },
  };
}
