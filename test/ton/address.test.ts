import { createHash } from 'node:crypto';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { compactForm, crc16, friendlyForm, isCanonicalRaw, isFriendlyFormOf, parseAddress, rawKey, userFriendly } from '../../src/ton/address.js';

const RAW = '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563';

describe('parseAddress', () => {
  it.each([
    ['raw lowercase', '0:29023deb1272494b112310754aac7dd0660b68fcc40c3a693c97bd9acda5e563'],
    ['raw uppercase', RAW],
    ['bounceable base64url', 'EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB'],
    ['bounceable standard base64', 'EQApAj3rEnJJSxEjEHVKrH3QZgto/MQMOmk8l72azaXlY1zB'],
    ['non-bounceable', 'UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE'],
    ['testnet bounceable', userFriendly(Address.parseRaw(RAW), { bounceable: true, testnet: true })],
    ['testnet non-bounceable', userFriendly(Address.parseRaw(RAW), { bounceable: false, testnet: true })],
    ['surrounded by spaces', '  EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB '],
  ])('%s maps to the raw uppercase key', (_name, input) => {
    const parsed = parseAddress(input);
    expect(parsed).toMatchObject({ ok: true, value: { raw: RAW } });
  });

  it('reads a space inside a standard base64 form as +', () => {
    const address = Address.parseRaw('0:FB7F4C2C94C7A9FA4E15F1C3C0F1D2C6A19B3E5DC29A6F5E2E8D9F0C1B2A3948');
    const withPlus = address.toString({ urlSafe: false, bounceable: true });
    expect(withPlus).toContain('+');
    expect(parseAddress(withPlus.replaceAll('+', ' '))).toMatchObject({
      ok: true,
      value: { raw: '0:FB7F4C2C94C7A9FA4E15F1C3C0F1D2C6A19B3E5DC29A6F5E2E8D9F0C1B2A3948' },
    });
  });

  it('handles the masterchain', () => {
    const mc = '-1:3333333333333333333333333333333333333333333333333333333333333333';
    const friendly = userFriendly(Address.parseRaw(mc), { bounceable: true, testnet: false });
    expect(friendly.startsWith('Ef8')).toBe(true);
    expect(parseAddress(friendly)).toMatchObject({ ok: true, value: { raw: mc } });
  });

  it.each([
    ['bad CRC', 'EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zC'],
    ['too short', 'EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1z'],
    ['too long', 'EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zBA'],
    ['raw with 63 hex digits', '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E56'],
    ['raw with a non-hex digit', '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E56G'],
    ['empty', ''],
    ['garbage', 'hello'],
  ])('rejects %s', (_name, input) => {
    expect(parseAddress(input).ok).toBe(false);
  });

  it('formats the address book forms', () => {
    const address = Address.parseRaw(RAW);
    expect(userFriendly(address, { bounceable: true, testnet: false })).toBe('EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB');
    expect(userFriendly(address, { bounceable: false, testnet: false })).toBe('UQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlYwEE');
  });
});

describe('isCanonicalRaw', () => {
  const HEX = '29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563';
  it.each([
    [`0:${HEX}`, true],
    [`-1:${HEX}`, true],
    [`0:${HEX.toLowerCase()}`, false],
    [`0:${HEX.slice(0, 63)}a`, false],
    [`00:${HEX}`, false],
    [`-0:${HEX}`, false],
    [`+0:${HEX}`, false],
    [`:${HEX}`, false],
    [`-:${HEX}`, false],
    [`0:${HEX}0`, false],
    [`0:${HEX.slice(1)}`, false],
    [`0:${HEX.slice(0, 63)}G`, false],
    [`0;${HEX}`, false],
    ['EQApAj3rEnJJSxEjEHVKrH3QZgto_MQMOmk8l72azaXlY1zB', false],
    ['', false],
  ])('%s → %s, exactly when it is the key parseAddress makes of it', (text, canonical) => {
    expect(isCanonicalRaw(text)).toBe(canonical);
    const parsed = parseAddress(text);
    expect(parsed.ok && parsed.value.raw === text).toBe(canonical);
    // parseAddress takes canonical text as it is, without @ton/core: @ton/core agrees.
    if (canonical) expect(rawKey(Address.parseRaw(text))).toBe(text);
    else if (parsed.ok && /^-?\d+:/.test(text)) expect(parsed.value.raw).toBe(rawKey(Address.parseRaw(text)));
  });
});

describe('compactForm', () => {
  it('is the user-friendly base64url form @ton/core gives, for both workchains, and parses back to the same key', () => {
    for (let i = 0; i < 200; i += 1) {
      const raw = `${i % 4 === 0 ? -1 : 0}:${createHash('sha256').update(String(i)).digest('hex').toUpperCase()}`;
      const compact = compactForm(raw);
      expect(compact).toBe(Address.parseRaw(raw).toString({ urlSafe: true, bounceable: true }));
      expect(compact).toMatch(/^[A-Za-z0-9_-]{48}$/);
      expect(parseAddress(compact)).toEqual({ ok: true, value: { raw } });
    }
  });
});

describe('the codec against @ton/core', () => {
  /** Deterministic bytes: the same addresses at every run, spread over the whole space. */
  const bytesOf = (seed: string, n: number): Buffer => createHash('sha512').update(seed).digest().subarray(0, n);
  const workchains = [0, -1, 1, 127, -128, 5];
  const addresses = Array.from({ length: 600 }, (_, i) => {
    const hash = bytesOf(`address:${i}`, 32);
    return Address.parseRaw(`${workchains[i % workchains.length]}:${hash.toString('hex')}`);
  });

  it('reads every user-friendly form (both tags, test flag, both alphabets) to the key @ton/core gives', () => {
    for (const address of addresses) {
      for (const bounceable of [true, false]) {
        for (const testOnly of [false, true]) {
          for (const urlSafe of [true, false]) {
            const text = address.toString({ bounceable, testOnly, urlSafe });
            const parsed = parseAddress(text);
            expect(parsed, text).toEqual({ ok: true, value: { raw: rawKey(Address.parseFriendly(text).address) } });
          }
        }
      }
    }
  });

  it('writes the user-friendly forms @ton/core writes, and the compact form upstreams are asked with', () => {
    for (const address of addresses) {
      for (const bounceable of [true, false]) {
        for (const testnet of [false, true]) {
          expect(userFriendly(address, { bounceable, testnet })).toBe(address.toString({ urlSafe: true, bounceable, testOnly: testnet }));
        }
      }
      expect(compactForm(rawKey(address))).toBe(address.toString({ urlSafe: true, bounceable: true }));
    }
  });

  it('tells a form @ton/core writes for the key and flags from any other text, without making one', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const [i, address] of addresses.entries()) {
      const raw = rawKey(address);
      for (const bounceable of [true, false]) {
        for (const testnet of [false, true]) {
          const text = address.toString({ urlSafe: true, bounceable, testOnly: testnet });
          expect(isFriendlyFormOf(text, raw, { bounceable, testnet }), text).toBe(true);
          expect(isFriendlyFormOf(text, raw, { bounceable: !bounceable, testnet })).toBe(false);
          expect(isFriendlyFormOf(text, raw, { bounceable, testnet: !testnet })).toBe(false);
          // Any one character changed, the standard alphabet, another key, another length.
          const at = i % 48;
          const changed = text.slice(0, at) + alphabet[(alphabet.indexOf(text[at] as string) + 1 + (i % 63)) % 64] + text.slice(at + 1);
          expect(isFriendlyFormOf(changed, raw, { bounceable, testnet }), changed).toBe(false);
          const standard = address.toString({ urlSafe: false, bounceable, testOnly: testnet });
          expect(isFriendlyFormOf(standard, raw, { bounceable, testnet })).toBe(standard === text);
          expect(isFriendlyFormOf(text, rawKey(addresses[(i + 1) % addresses.length] as Address), { bounceable, testnet })).toBe(false);
          expect(isFriendlyFormOf(`${text}A`, raw, { bounceable, testnet })).toBe(false);
          expect(friendlyForm(raw, { bounceable, testnet })).toBe(text);
        }
      }
    }
  });

  it('refuses what @ton/core refuses: every single-character change of a form, and forged tags', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    let tried = 0;
    for (const address of addresses.slice(0, 40)) {
      const text = address.toString({ urlSafe: true, bounceable: true });
      for (let at = 0; at < text.length; at += 3) {
        const changed = text.slice(0, at) + alphabet[(alphabet.indexOf(text[at] as string) + 17) % 64] + text.slice(at + 1);
        let theirs: string | null;
        try {
          theirs = rawKey(Address.parseFriendly(changed).address);
        } catch {
          theirs = null;
        }
        const ours = parseAddress(changed);
        expect(ours.ok ? ours.value.raw : null, changed).toBe(theirs);
        tried += 1;
      }
    }
    expect(tried).toBeGreaterThan(500);
    // A valid checksum over a tag that is neither bounceable nor non-bounceable.
    for (const tag of [0x00, 0x12, 0x50, 0xd0, 0xff]) {
      const bytes = Buffer.alloc(36);
      bytes[0] = tag;
      bytes.set(bytesOf('tag', 32), 2);
      bytes.writeUInt16BE(crc16(bytes, 34), 34);
      const text = bytes.toString('base64url');
      expect(parseAddress(text)).toEqual({ ok: false, reason: 'Unknown address tag' });
      expect(() => Address.parseFriendly(text)).toThrow();
    }
  });

  it('computes the CRC16 @ton/core computes, on any length', async () => {
    const { crc16: theirs } = await import('@ton/core/dist/utils/crc16.js');
    for (let n = 0; n < 80; n += 1) {
      const bytes = bytesOf(`crc:${n}`, Math.min(n, 64));
      expect(crc16(bytes)).toBe(theirs(bytes).readUInt16BE(0));
    }
  });

  it('reads non-canonical raw forms as @ton/core does (lowercase hex, leading zeros, -0)', () => {
    const hex = bytesOf('raw', 32).toString('hex');
    for (const text of [`0:${hex}`, `00:${hex}`, `-0:${hex}`, `-01:${hex}`, `007:${hex.toUpperCase()}`, `-128:${hex}`, `127:${hex}`]) {
      expect(parseAddress(text)).toEqual({ ok: true, value: { raw: rawKey(Address.parseRaw(text)) } });
    }
  });
});
