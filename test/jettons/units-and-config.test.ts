import { describe, expect, it } from 'vitest';
import { CONFIG_PIECES } from '../../src/features/index.js';
import { jettonsOf } from '../../src/features/jettons/config.js';
import { decimalsOfMetadata, jettonUnits } from '../../src/domain/jettons.js';
import { describeConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/problems.js';
import { configFrom } from '../helpers/config.js';

const USDT = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';
const USDT_RAW = '0:B113A994B5024A16719F69139328EB759596C38A25F59028B146FECDC3621DFE';
const A = '0:29023DEB1272494B112310754AAC7DD0660B68FCC40C3A693C97BD9ACDA5E563';
const B = 'EQBaiaCkue3_u390PDkZ_C0VR_SgKVPORVU6FnOiptVyQnZr';

describe('jettonUnits', () => {
  it.each([
    ['0', 6, '0'],
    ['1', 6, '0.000001'],
    ['1000000', 6, '1'],
    ['1234567', 6, '1.234567'],
    ['1230000', 6, '1.23'],
    ['000120', 2, '1.2'],
    ['42', 0, '42'],
    ['7', 9, '0.000000007'],
    // Past 2^53 base units: every digit kept (a float would round the last ones).
    ['123456789012345678901234', 9, '123456789012345.678901234'],
    ['9007199254740993', 0, '9007199254740993'],
    ['9007199254740993', 3, '9007199254740.993'],
    ['5', 255, `0.${'0'.repeat(254)}5`],
  ])('%s base units with %i decimals is %s', (units, decimals, expected) => {
    expect(jettonUnits(units, decimals)).toBe(expected);
  });

  it('refuses what is not a balance in base units', () => {
    for (const bad of ['', '-1', '1.5', '1e6', ' 1']) expect(() => jettonUnits(bad, 6)).toThrow(/not a balance/);
  });
});

const problemsOf = async (document: string, files: Record<string, string> = {}): Promise<string[]> => {
  try {
    await configFrom(document, files);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems.map((p) => `${p.path}: ${p.message}`);
    throw err;
  }
  return [];
};

describe('jetton config', () => {
  const jettons = `jettons: { USDT: { master: "${USDT}", decimals: 6 } }`;

  it('reads jettons, watchJettons, per-entry jettons and thresholds, and file options; merges jettons of duplicates', async () => {
    const config = await configFrom(
      [
        `jettons: { USDT: { master: "${USDT}", decimals: 6 }, NOT: { master: "${A}", decimals: 9 } }`,
        'watchJettons: [USDT]',
        'watchlist:',
        `  - { address: "${A}", name: hot, jettons: [NOT], minJettonBalance: { USDT: 1000, NOT: 2.5 } }`,
        'watchlistFiles: [ { file: deposits.txt, jettons: [NOT] }, plain.txt ]',
      ].join('\n'),
      { '/cfg/deposits.txt': `${B},deposit-1\n${A},dup\n`, '/cfg/plain.txt': `${USDT_RAW.replace('B113', 'C113')},plain\n` },
    );
    expect(config.jettons).toEqual([
      { name: 'USDT', master: USDT_RAW, masterAsWritten: USDT, decimals: 6 },
      { name: 'NOT', master: A, masterAsWritten: A, decimals: 9 },
    ]);
    expect(config.watchJettons).toEqual(['USDT']);
    expect(config.watchlistFiles).toEqual(['/cfg/deposits.txt', '/cfg/plain.txt']);
    const [hot, deposit, plain] = config.watchlist;
    expect(hot?.minJettonBalance).toEqual({ USDT: 1000, NOT: 2.5 });
    expect(jettonsOf(config, hot!)).toEqual(['USDT', 'NOT']);
    expect(jettonsOf(config, deposit!)).toEqual(['USDT', 'NOT']);
    expect(jettonsOf(config, plain!)).toEqual(['USDT']);
    expect(config.watchlist).toHaveLength(3);
  });

  it('says what is wrong: unknown names wherever used, a master that does not parse, decimals outside 0..255, a threshold for a jetton not watched', async () => {
    const uses = [
      'watchJettons: [USDC]',
      'watchlist:',
      `  - { address: "${A}", jettons: [DOGE], minJettonBalance: { USDT: 5, ETH: 1 } }`,
      'watchlistFiles: [ { file: f.txt, jettons: [NOPE] } ]',
    ];
    const problems = await problemsOf(
      [
        `jettons: { USDT: { master: "${USDT}", decimals: 6 }, BAD: { master: "EQnotanaddress", decimals: 6 }, BIG: { master: "${A}", decimals: 256 }, NEG: { master: "${A}", decimals: -1 }, "1X": { master: "${A}", decimals: 2 } }`,
        ...uses,
      ].join('\n'),
      { '/cfg/f.txt': `${B}\n` },
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^jettons\.BAD\.master: invalid address "EQnotanaddress"/),
        expect.stringMatching(/^jettons\.BIG\.decimals: decimals must be 0\.\.255/),
        expect.stringMatching(/^jettons\.NEG\.decimals: decimals must be 0\.\.255/),
        expect.stringMatching(/^jettons\.1X: invalid key: a jetton name is a letter/),
      ]),
    );
    // The names are checked once the jettons themselves parse.
    const names = await problemsOf([jettons, ...uses].join('\n'), { '/cfg/f.txt': `${B}\n` });
    expect(names).toEqual(
      expect.arrayContaining([
        'watchJettons.0: unknown jetton "USDC": jettons: names USDT',
        'watchlist.0.jettons.0: unknown jetton "DOGE": jettons: names USDT',
        'watchlist.0.minJettonBalance.ETH: unknown jetton "ETH": jettons: names USDT',
        'watchlist.0.minJettonBalance.USDT: USDT is not watched for this wallet: add it to its jettons or to watchJettons',
        'watchlistFiles.0.jettons.0: unknown jetton "NOPE": jettons: names USDT',
      ]),
    );
    expect(await problemsOf(['watchJettons: [USDT]'].join('\n'))).toEqual([
      'watchJettons.0: unknown jetton "USDT": no jettons are configured (add them under jettons:)',
    ]);
  });
});

describe('decimals read from the metadata', () => {
  it.each([
    [
      { decimals: '6', name: 'Tether USD' },
      { ok: true, decimals: 6 },
    ],
    [{ decimals: 9 }, { ok: true, decimals: 9 }],
    [{ name: 'No decimals' }, { ok: true, decimals: 9 }],
    [{}, { ok: true, decimals: 9 }],
    [{ uri: 'https://example.invalid/meta.json' }, { ok: false, reason: expect.stringContaining('off-chain') as string }],
    [{ decimals: '256' }, { ok: false, reason: expect.stringContaining('not 0..255') as string }],
    [{ decimals: 'six' }, { ok: false, reason: expect.stringContaining('not 0..255') as string }],
  ])('%j → %j', (content, expected) => {
    expect(decimalsOfMetadata(content)).toEqual(expected);
  });

  it('takes a jetton without decimals, to be read from its master, and says so in check-config', async () => {
    const config = await configFrom(`jettons: { USDT: { master: "${USDT}" } }\nwatchJettons: [USDT]\nwatchlist: [ { address: "${A}" } ]`);
    expect(config.jettons[0]?.decimals).toBeNull();
    expect(await describeConfig(config, CONFIG_PIECES)).toContain("decimals: read from the master's metadata (TEP-64) at the first jetton poll");
  });
});
