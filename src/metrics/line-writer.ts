import { escapeLabelValue } from './text-format.js';

/**
 * Writes text-format samples straight into one growing buffer. The wallet series run to
 * several hundred thousand lines per snapshot; building a string per line, joining them
 * and encoding the result cost three copies and most of the garbage collector's time.
 */
export interface LineWriter {
  /** Text as UTF-8, unescaped: metric names, our own punctuation, pre-escaped label sets. */
  text(value: string): void;
  /** Bytes encoded beforehand (label sets cached per wallet): one copy, no per-character work. */
  bytes(value: Uint8Array): void;
  /**
   * Text known to be ASCII (a raw address, digits checked on decoding): copied by the
   * runtime in one call, not character by character. Anything else would be mangled.
   */
  ascii(value: string): void;
  /** `value[from..to)`, as text() would write it. */
  textRange(value: string, from: number, to: number): void;
  /** A label value, escaped as the format requires (backslash, double quote, newline). */
  labelValue(value: string): void;
  /**
   * A label value that repeats across many lines (status, wallet type): escaped and
   * encoded once. The first REPEATED_VALUES distinct values are kept; others are written
   * as labelValue() writes them.
   */
  repeatedLabelValue(value: string): void;
  /** A number as String() would print it, without allocating for safe integers. */
  integer(value: number): void;
  /** How many bytes were written since the last take(). */
  size(): number;
  /** The bytes written since the last take(), in a buffer of their own; the writer starts over. */
  take(): Buffer;
  /**
   * The bytes written since the last take() or clear(), not copied: a view of the writer's
   * own buffer, good until the next write after a clear().
   */
  written(): Buffer;
  /** Starts over, keeping the buffer: what written() returned is overwritten by the next writes. */
  clear(): void;
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const NEWLINE = 0x0a;
const EMPTY = Buffer.alloc(0);
const REPEATED_VALUES = 256;
/** From this length on, a label value with nothing to escape is copied by the runtime. */
const NATIVE_FROM = 24;
/** Printable ASCII but `"` and `\\`: written as it is. */
const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function createLineWriter(initialBytes = 256 * 1024): LineWriter {
  let buffer = Buffer.allocUnsafe(initialBytes);
  let position = 0;
  const digits = new Uint8Array(24);
  const repeated = new Map<string, Buffer>();

  const reserve = (bytes: number): void => {
    if (position + bytes <= buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(buffer.length * 2, position + bytes));
    buffer.copy(grown, 0, 0, position);
    buffer = grown;
  };

  const textRange = (value: string, from: number, to: number): void => {
    reserve(to - from);
    const at = copyAscii(buffer, position, value, from, to);
    if (at !== -1) {
      position = at;
      return;
    }
    // Rare (names, upstream strings): let the encoder handle multi-byte characters.
    const rest = value.slice(from, to);
    reserve(Buffer.byteLength(rest));
    position += buffer.write(rest, position, 'utf8');
  };

  const bytes = (value: Uint8Array): void => {
    reserve(value.length);
    buffer.set(value, position);
    position += value.length;
  };

  /** One byte per character, copied by the runtime: for text known to be ASCII. */
  const ascii = (value: string): void => {
    reserve(value.length);
    position += buffer.write(value, position, value.length, 'latin1');
  };

  const labelValue = (value: string): void => {
    if (value.length >= NATIVE_FROM && PLAIN_ASCII.test(value)) {
      // Long and nothing to escape (a user-friendly address): one copy by the runtime
      // beats a character loop.
      ascii(value);
      return;
    }
    reserve(value.length * 2);
    const at = escapeAscii(buffer, position, value);
    if (at !== -1) {
      position = at;
      return;
    }
    const escaped = escapeLabelValue(value);
    reserve(Buffer.byteLength(escaped));
    position += buffer.write(escaped, position, 'utf8');
  };

  return {
    text: (value) => textRange(value, 0, value.length),
    ascii,
    textRange,
    bytes,
    labelValue,
    repeatedLabelValue(value) {
      const encoded = repeated.get(value);
      if (encoded !== undefined) {
        bytes(encoded);
        return;
      }
      const start = position;
      labelValue(value);
      if (repeated.size < REPEATED_VALUES) repeated.set(value, Buffer.from(buffer.subarray(start, position)));
    },
    integer(value) {
      if (!Number.isSafeInteger(value)) {
        const printed = String(value);
        textRange(printed, 0, printed.length);
        return;
      }
      reserve(digits.length);
      const at = digitsOf(Math.abs(value), digits);
      if (value < 0) buffer[position++] = 0x2d; // -
      buffer.set(digits.subarray(at), position);
      position += digits.length - at;
    },
    size: () => position,
    take() {
      if (position === 0) return EMPTY;
      const out = Buffer.allocUnsafe(position);
      buffer.copy(out, 0, 0, position);
      position = 0;
      return out;
    },
    written: () => buffer.subarray(0, position),
    clear() {
      position = 0;
    },
  };
}

/**
 * Copies `value[from..to)` into `out` at `at`, a byte a character; returns the position
 * after it, or -1 at the first character past ASCII (what was copied is then to be
 * written over). `out` must have room for every character.
 */
function copyAscii(out: Buffer, at: number, value: string, from: number, to: number): number {
  let end = at;
  for (let i = from; i < to; i += 1) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) return -1;
    out[end++] = code;
  }
  return end;
}

/**
 * Writes an ASCII label value into `out` at `at`, escaped as the text format requires
 * (backslash, double quote, newline); returns the position after it, or -1 at the first
 * character past ASCII. `out` must have room for twice the value's length.
 */
function escapeAscii(out: Buffer, at: number, value: string): number {
  let end = at;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code === BACKSLASH || code === QUOTE) {
      out[end++] = BACKSLASH;
      out[end++] = code;
    } else if (code === NEWLINE) {
      out[end++] = BACKSLASH;
      out[end++] = 0x6e; // n
    } else if (code >= 0x80) {
      return -1;
    } else {
      out[end++] = code;
    }
  }
  return end;
}

/** The decimal digits of a non-negative safe integer, right-aligned in `digits`; returns where they start. */
function digitsOf(value: number, digits: Uint8Array): number {
  let rest = value;
  let at = digits.length;
  do {
    digits[--at] = 0x30 + (rest % 10);
    rest = Math.floor(rest / 10);
  } while (rest > 0);
  return at;
}
