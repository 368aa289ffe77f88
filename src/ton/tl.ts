import { TonParseError } from './errors.js';
import { crc32 } from 'node:zlib';

/**
 * TL, the binary serialisation of TON's node protocols (ADNL, the lite API): little-endian
 * 32- and 64-bit integers, 256-bit values as 32 raw bytes, and `bytes`/`string` with a
 * length prefix padded to four bytes. A boxed value starts with its constructor id, the
 * CRC32 of its normalised schema line; tlId() computes it from the line itself, so the
 * schema text in lite-api.ts is the one source of every id.
 */

/** A frame never carries anything near this; a longer length prefix is garbage, not data. */
const MAX_TL_BYTES = 1 << 24;

/** The constructor id of a schema line: CRC32 of the line without `;`, parentheses and repeated blanks. */
export function tlId(line: string): number {
  const normalised = line.replace(/;/g, '').replace(/[()]/g, '').replace(/\s+/g, ' ').trim();
  return crc32(Buffer.from(normalised, 'utf8')) >>> 0;
}

/** Malformed TL: the peer sent something that does not parse. */
export class TlError extends TonParseError {
  override readonly name = 'TlError';
  constructor(message: string) {
    super('bad_tl', message);
  }
}

export class TlWriter {
  private readonly parts: Buffer[] = [];

  id(value: number): this {
    return this.uint32(value);
  }

  int32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.parts.push(b);
    return this;
  }

  uint32(value: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value >>> 0);
    this.parts.push(b);
    return this;
  }

  /** A `long`: any 64-bit value, written as its two's complement. */
  int64(value: bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt.asUintN(64, value));
    this.parts.push(b);
    return this;
  }

  int256(value: Uint8Array): this {
    if (value.length !== 32) throw new RangeError(`int256 needs 32 bytes, got ${value.length}`);
    this.parts.push(Buffer.from(value));
    return this;
  }

  bytes(value: Uint8Array): this {
    const length = value.length;
    const header = length <= 253 ? Buffer.from([length]) : Buffer.from([254, length & 0xff, (length >> 8) & 0xff, (length >> 16) & 0xff]);
    const padding = (4 - ((header.length + length) % 4)) % 4;
    this.parts.push(header, Buffer.from(value), Buffer.alloc(padding));
    return this;
  }

  string(value: string): this {
    return this.bytes(Buffer.from(value, 'utf8'));
  }

  raw(value: Uint8Array): this {
    this.parts.push(Buffer.from(value));
    return this;
  }

  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export class TlReader {
  private offset = 0;
  constructor(private readonly buffer: Buffer) {}

  private take(length: number): Buffer {
    if (this.offset + length > this.buffer.length) throw new TlError(`truncated: needs ${length} bytes at offset ${this.offset} of ${this.buffer.length}`);
    const slice = this.buffer.subarray(this.offset, this.offset + length);
    this.offset += length;
    return slice;
  }

  uint32(): number {
    return this.take(4).readUInt32LE();
  }

  int32(): number {
    return this.take(4).readInt32LE();
  }

  /** A `long` as a signed value. */
  int64(): bigint {
    return this.take(8).readBigInt64LE();
  }

  int256(): Buffer {
    return Buffer.from(this.take(32));
  }

  bytes(): Buffer {
    const first = this.take(1)[0] ?? 0;
    let length = first;
    let header = 1;
    if (first === 254) {
      const b = this.take(3);
      length = (b[0] ?? 0) | ((b[1] ?? 0) << 8) | ((b[2] ?? 0) << 16);
      header = 4;
    } else if (first === 255) {
      throw new TlError('bytes with a 255 length byte');
    }
    if (length > MAX_TL_BYTES) throw new TlError(`bytes of ${length} are too long`);
    const value = Buffer.from(this.take(length));
    this.take((4 - ((header + length) % 4)) % 4);
    return value;
  }

  string(): string {
    return this.bytes().toString('utf8');
  }

  /** Reads the constructor id and checks it is `expected`. */
  expect(expected: number, what: string): void {
    const id = this.uint32();
    if (id !== expected) throw new TlError(`expected ${what} (0x${hex(expected)}), got 0x${hex(id)}`);
  }

  get remaining(): number {
    return this.buffer.length - this.offset;
  }
}

export const hex = (id: number): string => (id >>> 0).toString(16).padStart(8, '0');
