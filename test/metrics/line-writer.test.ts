import { describe, expect, it } from 'vitest';
import { createLineWriter } from '../../src/metrics/line-writer.js';
import { escapeLabelValue } from '../../src/metrics/text-format.js';

describe('line writer', () => {
  // Deliberately tiny so that every case also exercises growing the buffer.
  const writer = () => createLineWriter(2);

  // Long values take a different path (copied whole when there is nothing to escape):
  // some with something to escape at the very end.
  const long = [
    'x'.repeat(10_000),
    `EQ${'Ab-_9'.repeat(9)}x`,
    `${'q'.repeat(40)}"`,
    `${'b'.repeat(40)}\\`,
    `${'n'.repeat(40)}\n`,
    'ü'.repeat(40),
    `${'t'.repeat(30)}\tend`,
  ];
  it.each(['', 'plain', 'a"b\\c\nd', 'кошелёк "горячий"', 'emoji 🦄 \\ "', '\n\n', ...long])(
    'writes label value %j as escapeLabelValue does, in UTF-8',
    (value) => {
      const out = writer();
      out.text('before ');
      out.labelValue(value);
      out.text(' after');
      expect(out.take().toString('utf8')).toBe(`before ${escapeLabelValue(value)} after`);
    },
  );

  it('writes repeated label values as labelValue does, also past the number it keeps', () => {
    const out = writer();
    const values = Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? `v"${i}` : `статус ${i}`));
    for (const value of [...values, ...values]) {
      out.repeatedLabelValue(value);
      out.text('|');
    }
    expect(out.take().toString('utf8')).toBe([...values, ...values].map((v) => `${escapeLabelValue(v)}|`).join(''));
  });

  it.each(['ascii', 'naïve', '日本語', '🦄', ''])('writes text %j and ranges of it unchanged', (value) => {
    const out = writer();
    out.text(value);
    out.textRange(`[${value}]`, 1, value.length + 1);
    expect(out.take().toString('utf8')).toBe(value + value);
  });

  it.each([0, 7, -7, 10, 698983191, -2147483648, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 1.5, 1e21, -0.25])(
    'writes the number %d as String() does',
    (value) => {
      const out = writer();
      out.integer(value);
      expect(out.take().toString()).toBe(String(value));
    },
  );

  it('writes ASCII text in one copy, and counts what it has written since take()', () => {
    const out = writer();
    const raw = `0:${'AB12'.repeat(16)}`;
    out.text('address="');
    expect(out.size()).toBe(9);
    out.ascii(raw);
    out.ascii('');
    out.text('"');
    expect(out.size()).toBe(9 + raw.length + 1);
    expect(out.take().toString('utf8')).toBe(`address="${raw}"`);
    expect(out.size()).toBe(0);
  });

  it('starts over after take(), and each taken buffer is its own', () => {
    const out = writer();
    out.text('first');
    const first = out.take();
    out.text('second');
    expect(out.take().toString()).toBe('second');
    expect(first.toString()).toBe('first');
    expect(out.take().length).toBe(0);
  });

  it('lends what it has written without copying, and after clear() writes over it in the same buffer', () => {
    const out = writer();
    out.text('one,');
    out.text('two');
    const lent = out.written();
    expect(lent.toString()).toBe('one,two');
    expect(out.size()).toBe(7);
    out.clear();
    expect(out.size()).toBe(0);
    out.text('six');
    // The same memory: what was lent now begins with the new bytes.
    expect(lent.toString()).toBe('six,two');
    expect(out.written().buffer).toBe(lent.buffer);
    expect(out.take().toString()).toBe('six');
  });
});
