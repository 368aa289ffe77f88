import { createHash } from 'node:crypto';
import { Address } from '@ton/core';
import { describe, expect, it } from 'vitest';
import { compactForm, isCanonicalRaw, parseAddress, rawKey, userFriendly } from '../../src/ton/address.js';

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
