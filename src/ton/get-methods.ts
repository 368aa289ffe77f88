import { createHash } from 'node:crypto';
import { Address, beginCell, Cell, Dictionary, parseTuple, serializeTuple, TupleReader } from '@ton/core';
import { crc16, rawKey } from './address.js';

/**
 * The TEP-74 get-methods tonwatch runs on a liteserver (liteServer.runSmcMethod), both ways:
 * the upstream encodes the arguments and reads the result stack, the simulator the reverse.
 * Stacks are BoCs of a VmStack, made and read by @ton/core.
 */

/** A get-method's id: the CRC16 of its name, with bit 16 set (as FunC's method_id does). */
export function methodId(name: string): bigint {
  return BigInt((crc16(Buffer.from(name, 'utf8')) & 0xffff) | 0x10000);
}

export const GET_WALLET_ADDRESS = methodId('get_wallet_address');
export const GET_WALLET_DATA = methodId('get_wallet_data');

const sliceOf = (raw: string): Cell => beginCell().storeAddress(Address.parseRaw(raw)).endCell();
const reader = (boc: Buffer): TupleReader => {
  const [root] = Cell.fromBoc(boc);
  if (root === undefined) throw new Error('an empty result stack');
  return new TupleReader(parseTuple(root));
};
const addressOf = (r: TupleReader): string => {
  const address = r.readAddress();
  return rawKey(address);
};

/** get_wallet_address's argument: the owner's address as a slice. */
export function walletAddressParams(owner: string): Buffer {
  return serializeTuple([{ type: 'slice', cell: sliceOf(owner) }]).toBoc();
}

/** get_wallet_address's result: the jetton wallet's canonical key. */
export function readWalletAddress(boc: Buffer): string {
  return addressOf(reader(boc));
}

/** get_wallet_data's result (balance, owner, master, wallet code): the balance as a decimal string, the owner and master as keys. */
export function readWalletData(boc: Buffer): { balance: string; owner: string; master: string } {
  const r = reader(boc);
  const balance = r.readBigNumber();
  if (balance < 0n) throw new Error(`a negative jetton balance: ${balance}`);
  return { balance: balance.toString(), owner: addressOf(r), master: addressOf(r) };
}

/** The simulator's side: a stack of one address slice (get_wallet_address). */
export function walletAddressResult(wallet: string): Buffer {
  return serializeTuple([{ type: 'slice', cell: sliceOf(wallet) }]).toBoc();
}

/** The simulator's side: get_wallet_data's stack; the code cell is a stand-in. */
export function walletDataResult(balance: bigint, owner: string, master: string): Buffer {
  const code = beginCell().storeUint(0x7e77, 16).endCell();
  return serializeTuple([
    { type: 'int', value: balance },
    { type: 'slice', cell: sliceOf(owner) },
    { type: 'slice', cell: sliceOf(master) },
    { type: 'cell', cell: code },
  ]).toBoc();
}

/** The simulator's side: get_wallet_address's argument, the owner's key. */
export function readWalletAddressParams(boc: Buffer): string {
  return addressOf(reader(boc));
}

export const GET_JETTON_DATA = methodId('get_jetton_data');

const sha256Key = (name: string): bigint => BigInt(`0x${createHash('sha256').update(name).digest('hex')}`);
const METADATA_KEYS = ['decimals', 'uri', 'name', 'symbol'] as const;

/** A TEP-64 snake value (`0x00` then bytes, continued in the first reference), as text. */
function snakeText(cell: Cell): string {
  const slice = cell.beginParse();
  if (slice.remainingBits >= 8 && slice.preloadUint(8) === 0) slice.loadUint(8);
  const parts: Buffer[] = [];
  for (let s = slice; ;) {
    parts.push(s.loadBuffer(Math.floor(s.remainingBits / 8)));
    if (s.remainingRefs === 0) break;
    s = s.loadRef().beginParse();
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * get_jetton_data's content cell (TEP-64) as the indexer's `jetton_content` keys tonwatch
 * reads: on-chain (`0x00`, a dictionary by sha256 of the key) gives its `decimals`, `uri`,
 * `name` and `symbol`; off-chain (`0x01`, a URI) gives `uri`.
 */
export function readJettonContent(boc: Buffer): Record<string, string> {
  const r = reader(boc);
  r.readBigNumber();
  r.readBigNumber();
  r.readCellOpt();
  const content = r.readCell().beginParse();
  const layout = content.loadUint(8);
  if (layout === 1) return { uri: content.loadStringTail() };
  if (layout !== 0) throw new Error(`content layout 0x${layout.toString(16)} is neither on-chain (0x00) nor off-chain (0x01)`);
  const dict = content.loadDict(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  const out: Record<string, string> = {};
  for (const key of METADATA_KEYS) {
    const value = dict.get(sha256Key(key));
    if (value !== undefined) out[key] = snakeText(value);
  }
  return out;
}

/** The simulator's side: get_jetton_data's stack with on-chain metadata (name, symbol, decimals). */
export function jettonDataResult(totalSupply: bigint, admin: string, metadata: Readonly<Record<string, string>>): Buffer {
  const dict = Dictionary.empty(Dictionary.Keys.BigUint(256), Dictionary.Values.Cell());
  for (const [key, value] of Object.entries(metadata)) dict.set(sha256Key(key), beginCell().storeUint(0, 8).storeStringTail(value).endCell());
  const content = beginCell().storeUint(0, 8).storeDict(dict).endCell();
  return serializeTuple([
    { type: 'int', value: totalSupply },
    { type: 'int', value: -1n },
    { type: 'slice', cell: sliceOf(admin) },
    { type: 'cell', cell: content },
    { type: 'cell', cell: beginCell().storeUint(0x7e77, 16).endCell() },
  ]).toBoc();
}
