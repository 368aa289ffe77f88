import { Address, beginCell, Cell, parseTuple, serializeTuple, TupleReader } from '@ton/core';
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
