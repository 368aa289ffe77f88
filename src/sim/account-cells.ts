import { createHash } from 'node:crypto';
import { Cell, Dictionary, beginCell, storeAccount, type AccountState, type Address } from '@ton/core';
import { buildShardAccounts, buildShardStateProof } from '../ton/shard-accounts.js';

/** Which contract a simulated account runs, or what state it is in without one. */
export type SimAccountKind = 'v4r2' | 'v5r1' | 'v3r2' | 'uninit' | 'frozen' | 'contract' | 'nonexist';

/** A simulated account: its kind, balance, seqno and last transaction. */
export interface SimAccount {
  readonly raw: string;
  readonly address: Address;
  readonly kind: SimAccountKind;
  balance: bigint;
  seqno: number;
  lt: bigint;
  txHash: string;
  extraCurrencies: Record<string, string>;
}

/**
 * The simulated accounts as the chain stores them: real wallet code (so code hashes and
 * wallet detection are mainnet's), data cells laid out as each contract lays them out, and
 * the ShardAccount holding the last transaction. The HTTP face serves the code hash from
 * here and the liteserver face the cells themselves, so both tell the same story.
 */

/** Wallet code (base64 BoCs) of the versions the simulator deploys, as deployed on mainnet (the code cells of @ton/ton's wallet contracts). */
const WALLET_CODE_BOCS: Partial<Record<SimAccountKind, string>> = {
  v3r2:
    'te6ccgEBAQEAcQAA3v8AIN0gggFMl7ohggEznLqxn3Gw7UTQ0x/THzHXC//jBOCk8mCDCNcYINMf0x/TH/gjE7vyY+1E0NMf0x/T/9FRMrryoVFEuvKiBPkBVBBV+RDyo/gAkyDXSpbTB' +
    '9QC+wDo0QGkyMsfyx/L/8ntVA==',
  v4r2:
    'te6ccgECFAEAAtQAART/APSkE/S88sgLAQIBIAIPAgFIAwYC5tAB0NMDIXGwkl8E4CLXScEgkl8E4ALTHyGCEHBsdWe9IoIQZHN0cr2wkl8F4AP6QDAg+kQByMoHy//J0O1E0IEBQNch9' +
    'AQwXIEBCPQKb6Exs5JfB+AF0z/IJYIQcGx1Z7qSODDjDQOCEGRzdHK6kl8G4w0EBQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+w' +
    'AGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAHDgIBIAgNAgFYCQoAPbKd+1E0IEBQNch9AQwAsjKB8' +
    'v/ydABgQEI9ApvoTGACASALDAAZrc52omhAIGuQ64X/wAAZrx32omhAEGuQ64WPwAARuMl+1E0NcLH4AFm9JCtvaiaECAoGuQ+gIYRw1AgIR6STfSmRDOaQPp/5g3gSgBt4EBSJhxWfMY' +
    'QE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjA' +
    'CHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9F' +
    'Hyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVA==',
  v5r1:
    'te6ccgECFAEAAoEAART/APSkE/S88sgLAQIBIAINAgFIAwQC3NAg10nBIJFbj2Mg1wsfIIIQZXh0br0hghBzaW50vbCSXwPgghBleHRuuo60gCDXIQHQdNch+kAw+kT4KPpEMFi9kVvg7' +
    'UTQgQFB1yH0BYMH9A5voTGRMOGAQNchcH/bPOAxINdJgQKAuZEw4HDiEA8CASAFDAIBIAYJAgFuBwgAGa3OdqJoQCDrkOuF/8AAGa8d9qJoQBDrkOuFj8ACAUgKCwAXsyX7UTQcdch1wsfgAB' +
    'GyYvtRNDXCgCAAGb5fD2omhAgKDrkPoCwBAvIOAR4g1wsfghBzaWduuvLgin8PAeaO8O2i7fshgwjXIgKDCNcjIIAg1yHTH9Mf0x/tRNDSANMfINMf0//XCgAK+QFAzPkQmiiUXwrbMeHyw' +
    'IffArNQB7Dy0IRRJbry4IVQNrry4Ib4I7vy0IgikvgA3gGkf8jKAMsfAc8Wye1UIJL4D95w2zzYEAP27aLt+wL0BCFukmwhjkwCIdc5MHCUIccAs44tAdcoIHYeQ2wg10nACPLgkyDXSs' +
    'AC8uCTINcdBscSwgBSMLDy0InXTNc5MAGk6GwShAe78uCT10rAAPLgk+1V4tIAAcAAkVvg69csCBQgkXCWAdcsCBwS4lIQseMPINdKERITAJYB+kAB+kT4KPpEMFi68uCR7UTQgQFB1' +
    'xj0BQSdf8jKAEAEgwf0U/Lgi44UA4MH9Fvy4Iwi1woAIW4Bs7Dy0JDiyFADzxYS9ADJ7VQAcjDXLAgkji0h8uCS0gDtRNDSAFETuvLQj1RQMJExnAGBAUDXIdcKAPLgjuLIygBYzx' +
    'bJ7VST8sCN4gAQk1vbMeHXTNA=',
};

const codeCells = new Map<SimAccountKind, Cell>();
/** The code cell of an active account of this kind; `contract` stands for a jetton master (any non-wallet code). */
export function codeCellOf(kind: SimAccountKind): Cell {
  let cell = codeCells.get(kind);
  if (cell === undefined) {
    const boc = WALLET_CODE_BOCS[kind];
    cell = boc === undefined ? beginCell().storeUint(0x5e1a7e7, 32).storeStringTail(`simulated ${kind} code`).endCell() : Cell.fromBase64(boc);
    codeCells.set(kind, cell);
  }
  return cell;
}

/** Base64 hash of an active account's code, as toncenter serves `code_hash`. */
export const codeHashOf = (kind: SimAccountKind): string => codeCellOf(kind).hash().toString('base64');

/** A wallet's public key: derived from its address, as good as any for a simulation. */
const publicKeyOf = (a: SimAccount): Buffer => createHash('sha256').update(`key:${a.raw}`).digest();

function dataCell(a: SimAccount, walletId: number | undefined): Cell {
  switch (a.kind) {
    case 'v3r2':
      return beginCell()
        .storeUint(a.seqno, 32)
        .storeUint(walletId ?? 0, 32)
        .storeBuffer(publicKeyOf(a))
        .endCell();
    case 'v4r2':
      return beginCell()
        .storeUint(a.seqno, 32)
        .storeUint(walletId ?? 0, 32)
        .storeBuffer(publicKeyOf(a))
        .storeBit(false)
        .endCell();
    case 'v5r1':
      return beginCell()
        .storeBit(true)
        .storeUint(a.seqno, 32)
        .storeUint(walletId ?? 0, 32)
        .storeBuffer(publicKeyOf(a))
        .storeBit(false)
        .endCell();
    default:
      return beginCell().storeCoins(1_000_000_000_000n).storeAddress(a.address).endCell();
  }
}

function stateOf(a: SimAccount, walletId: number | undefined): AccountState {
  if (a.kind === 'uninit') return { type: 'uninit' };
  if (a.kind === 'frozen') return { type: 'frozen', stateHash: BigInt(`0x${createHash('sha256').update(`frozen:${a.raw}`).digest('hex')}`) };
  return { type: 'active', state: { code: codeCellOf(a.kind), data: dataCell(a, walletId) } };
}

/** The `Account` cell (with its leading `account$1` bit); null for an account that does not exist. */
export function accountCellOf(a: SimAccount, walletId: number | undefined): Cell | null {
  if (a.kind === 'nonexist') return null;
  const other = Dictionary.empty(Dictionary.Keys.Uint(32), Dictionary.Values.BigVarUint(5));
  for (const [id, amount] of Object.entries(a.extraCurrencies)) other.set(Number(id), BigInt(amount));
  return beginCell()
    .storeBit(true)
    .store(
      storeAccount({
        addr: a.address,
        storageStats: { used: { cells: 3n, bits: 1200n }, storageExtra: null, lastPaid: 0, duePayment: null },
        // The account's own last_trans_lt is the end lt of its last transaction: one past the transaction's lt.
        storage: { lastTransLt: a.lt + 1n, balance: other.size > 0 ? { coins: a.balance, other } : { coins: a.balance }, state: stateOf(a, walletId) },
      }),
    )
    .endCell();
}

/**
 * The Merkle proof of the state of the shard holding `a` (its accounts dictionary with `a`
 * in it; a real proof prunes the rest, ours has nothing else), as getAccountState's proof.
 */
export function stateProofOf(a: SimAccount, account: Cell, block: { workchain: number; shard: bigint; seqno: number }): Cell {
  const accounts = buildShardAccounts([
    { accountHash: a.address.hash, account, lastTransHash: Buffer.from(a.txHash, 'base64'), lastTransLt: a.lt, balance: a.balance },
  ]);
  return buildShardStateProof({ ...block, genLt: a.lt + 1_000_000n, genUtime: 1_700_000_000, accounts });
}
