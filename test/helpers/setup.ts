import { expect } from 'vitest';
import { isPackedState, plainState } from '../../src/accounts/packed-state.js';

// A packed wallet state (src/accounts/packed-state.ts) equals the plain state it reads as:
// its twelve fields, compared one by one as any other object's.
expect.addEqualityTesters([
  function packedEqualsPlain(a: unknown, b: unknown, testers) {
    if (!isPackedState(a) && !isPackedState(b)) return undefined;
    const plain = (x: unknown): unknown => (isPackedState(x) ? plainState(x) : x);
    return this.equals(plain(a), plain(b), testers);
  },
]);
