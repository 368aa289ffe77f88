/**
 * One copy of each value that repeats across wallets (status, wallet type, code hash; an
 * address book entry's lists of names, and the entries themselves once their user-friendly
 * form is left to be computed: accounts/address-book.ts): 100,000 states hold a handful of
 * strings and objects instead of 300,000, and the parsed copies die young. Bounded: past
 * the limits, new values are kept as they came. Owned by whoever keeps the states it
 * interns for as long as they live (the wallets feature, for the life of the daemon).
 */
export interface Interning {
  string(value: string): string;
  /** A frozen shared copy of a list of strings; any other list as it is. */
  list(list: readonly unknown[]): readonly unknown[];
  /** The object kept for `key`, made by `make` the first time; undefined past the limit, for a key not kept. */
  shared<T extends object>(key: string, make: () => T): T | undefined;
}

export interface InterningLimits {
  readonly strings: number;
  readonly lists: number;
  readonly objects: number;
}

export function createInterning(limits: InterningLimits = { strings: 4096, lists: 1024, objects: 1024 }): Interning {
  const strings = new Map<string, string>();
  const lists = new Map<string, readonly string[]>();
  const objects = new Map<string, object>();
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
    shared<T extends object>(key: string, make: () => T): T | undefined {
      const known = objects.get(key);
      if (known !== undefined) return known as T;
      if (objects.size >= limits.objects) return undefined;
      const made = make();
      objects.set(key, made);
      return made;
    },
  };
}
