import { expect } from 'vitest';
import { isPackedState, plainState } from '../../src/accounts/packed-state.js';
import { isPackedJettonRecord, plainJettonRecord } from '../../src/features/jettons/packed-record.js';

// A packed wallet state (src/accounts/packed-state.ts) or jetton record
// (src/features/jettons/packed-record.ts) equals the plain object it reads as: its
// fields, compared one by one as any other object's.
expect.addEqualityTesters([
  function packedEqualsPlain(a: unknown, b: unknown, testers) {
    const packed = (x: unknown): boolean => isPackedState(x) || isPackedJettonRecord(x);
    if (!packed(a) && !packed(b)) return undefined;
    const plain = (x: unknown): unknown => (isPackedState(x) ? plainState(x) : isPackedJettonRecord(x) ? plainJettonRecord(x) : x);
    return this.equals(plain(a), plain(b), testers);
  },
]);
