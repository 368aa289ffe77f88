import { createHash } from 'node:crypto';
import { Address, beginCell, convertToMerkleProof } from '@ton/core';
import { serializeRoots } from '../ton/boc.js';
import { type LiteBlockId, type LiteRequest } from '../ton/lite-api.js';
import {
  encodeAccountState,
  encodeAllShardsInfo,
  encodeBlockOutMsgQueueSize,
  encodeError,
  encodeMasterchainInfo,
  encodeOutMsgQueueSizes,
} from '../ton/lite-answers.js';
import { parseSignedShard, shardContains } from '../ton/shard.js';
import { buildShardHashes } from '../ton/shard-hashes.js';
import { accountCellOf, stateProofOf } from './account-cells.js';
import type { SimChain, SimShardQueue } from './chain.js';
import {
  GET_JETTON_DATA,
  GET_WALLET_ADDRESS,
  GET_WALLET_DATA,
  jettonDataResult,
  readWalletAddressParams,
  walletAddressResult,
  walletDataResult,
} from '../ton/get-methods.js';
import { encodeRunMethodResult } from '../ton/run-method.js';
import type { SimJettons } from './jettons.js';
import { WALLET_ID, type SimAccount, type SimWallets } from './wallets.js';
import { createLiteChainAnswers } from './lite-chain-answers.js';
import type { SimValidators } from './validators.js';

/**
 * The simulated chain's answers to the lite API calls tonwatch makes, as TL bytes: what
 * the simulator's liteserver (liteserver.ts) sends back when no fault is set.
 */

/** The code the simulator answers a function it does not know with (and getOutMsgQueueSizes, when told to act as an older node). */
export const UNKNOWN_QUERY_CODE = -400;

const bytes32 = (base64: string): Buffer => Buffer.from(base64, 'base64');
const blockOf = (q: SimShardQueue): LiteBlockId => ({
  workchain: q.workchain,
  shard: parseSignedShard(q.shard),
  seqno: q.seqno,
  rootHash: bytes32(q.rootHash),
  fileHash: bytes32(q.fileHash),
});

const blockKey = (workchain: number, shard: bigint, seqno: number): string => `${workchain}:${shard}:${seqno}`;

/** The blocks last answered as current, kept a while (the newest 256): a real node keeps history, the simulated chain does not. */
function createRecentBlocks(): { remember(queues: readonly SimShardQueue[]): void; get(key: string): SimShardQueue | undefined } {
  const recent = new Map<string, SimShardQueue>();
  return {
    remember(queues) {
      for (const q of queues) recent.set(blockKey(q.workchain, parseSignedShard(q.shard), q.seqno), q);
      for (const key of recent.keys()) {
        if (recent.size <= 256) break;
        recent.delete(key);
      }
    },
    get: (key) => recent.get(key),
  };
}

/** A deployed jetton wallet as an account (a contract holding a little TON for its fees), so that its state reads active. */
function jettonWalletAccount(jettons: SimJettons | undefined, raw: string): SimAccount | undefined {
  const wallet = jettons?.walletAt(raw);
  if (wallet === undefined) return undefined;
  const txHash = createHash('sha256').update(`jetton-wallet-tx:${raw}:${wallet.lt}`).digest('base64');
  return { raw, address: Address.parseRaw(raw), kind: 'contract', balance: 50_000_000n, seqno: 0, lt: wallet.lt, txHash, extraCurrencies: {} };
}

/** The TEP-74 get-methods on the simulator's jetton masters and wallets; any other run fails as on an account that is not active. */
function runMethod(jettons: SimJettons | undefined, mc: LiteBlockId, account: string, method: bigint, params: Buffer): Buffer {
  if (jettons !== undefined && method === GET_WALLET_ADDRESS) {
    const wallet = jettons.walletAddressOf(account, readWalletAddressParams(params));
    if (wallet !== null) return encodeRunMethodResult(mc, 0, walletAddressResult(wallet));
  }
  const master = method === GET_JETTON_DATA ? jettons?.master(account) : undefined;
  if (master !== undefined) return encodeRunMethodResult(mc, 0, jettonDataResult(master.totalSupply, account, master.metadata));
  const wallet = jettons?.walletAt(account);
  if (wallet !== undefined && method === GET_WALLET_DATA) return encodeRunMethodResult(mc, 0, walletDataResult(wallet.balance, wallet.owner, wallet.jetton));
  return encodeError(UNKNOWN_QUERY_CODE, 'cannot run get methods on an account that is not active');
}

/** getAccountState: the account's state with its proofs, from the shard block that holds it; an empty state for an unknown account. */
function accountState(
  accounts: { wallets: SimWallets; jettons: SimJettons | undefined },
  queues: readonly SimShardQueue[],
  mc: LiteBlockId,
  request: { workchain: number; account: Buffer },
): Buffer {
  const { workchain, account: hash } = request;
  const raw = `${workchain}:${hash.toString('hex').toUpperCase()}`;
  const account = accounts.wallets.account(raw) ?? jettonWalletAccount(accounts.jettons, raw);
  // The shard block that holds the account: the masterchain's for workchain -1, else the basechain shard whose prefix it has.
  const prefix = hash.readBigUInt64BE(0);
  const holder = queues.find((q) => q.workchain === workchain && shardContains(parseSignedShard(q.shard), prefix));
  const shardblk = holder ? blockOf(holder) : mc;
  const cell = account === undefined ? null : accountCellOf(account, WALLET_ID[account.kind]);
  if (account === undefined || cell === null) {
    return encodeAccountState({ id: mc, shardblk, shardProof: Buffer.alloc(0), proof: Buffer.alloc(0), state: Buffer.alloc(0) });
  }
  const stateProof = stateProofOf(account, cell, { workchain: shardblk.workchain, shard: shardblk.shard, seqno: shardblk.seqno });
  // Two roots, as a liteserver sends them: the shard block's proof (a stand-in header here), then the state's.
  const blockProof = convertToMerkleProof(beginCell().storeUint(0x11ef55aa, 32).storeInt(shardblk.workchain, 32).storeUint(shardblk.seqno, 32).endCell());
  return encodeAccountState({ id: mc, shardblk, shardProof: Buffer.alloc(0), proof: serializeRoots([blockProof, stateProof]), state: cell.toBoc() });
}

export function createLiteAnswers(options: {
  chain: SimChain;
  wallets: SimWallets;
  jettons?: SimJettons | undefined;
  validators: SimValidators;
  seed: number;
  now: () => number;
}): {
  answer(request: LiteRequest, withoutQueueSizes: boolean): Buffer;
} {
  const { chain, wallets, seed } = options;
  const recent = createRecentBlocks();

  const chainAnswer = createLiteChainAnswers({ validators: options.validators, seed, now: options.now });

  const answer = (request: LiteRequest, withoutQueueSizes: boolean): Buffer => {
    const queues = chain.queues();
    const masterchain = blockOf(queues[0] as SimShardQueue);
    const answered = chainAnswer(request, masterchain, queues[0]?.genUtime ?? 0);
    if (answered !== null) return answered;
    if (request.kind === 'getMasterchainInfo' || request.kind === 'getAllShardsInfo') recent.remember(queues);
    switch (request.kind) {
      case 'getMasterchainInfo': {
        const last = masterchain;
        const zero = createHash('sha256').update(`${seed}:zerostate`).digest();
        return encodeMasterchainInfo({
          last,
          stateRootHash: createHash('sha256').update(`state:${last.seqno}`).digest(),
          init: { workchain: -1, rootHash: zero, fileHash: zero },
        });
      }
      case 'getAllShardsInfo':
        return encodeAllShardsInfo(
          masterchain,
          buildShardHashes(queues.filter((q) => q.workchain !== -1).map((q) => ({ ...blockOf(q), genUtime: q.genUtime }))),
        );
      case 'getOutMsgQueueSizes':
        if (withoutQueueSizes) return encodeError(UNKNOWN_QUERY_CODE, 'unknown query');
        return encodeOutMsgQueueSizes({ shards: queues.map((q) => ({ id: blockOf(q), size: q.size })), extMsgQueueSizeLimit: chain.limit });
      case 'getBlockOutMsgQueueSize': {
        // The latest blocks, else one answered a moment ago (a block may have come between getAllShardsInfo and this).
        const key = blockKey(request.id.workchain, request.id.shard, request.id.seqno);
        const found = queues.find((q) => blockKey(q.workchain, parseSignedShard(q.shard), q.seqno) === key) ?? recent.get(key);
        if (found === undefined) return encodeError(UNKNOWN_QUERY_CODE, 'block not found');
        return encodeBlockOutMsgQueueSize(blockOf(found), found.size);
      }
      case 'getAccountState':
        return accountState({ wallets, jettons: options.jettons }, queues, masterchain, request);
      case 'getMasterchainInfoExt':
      case 'getConfigParams':
      case 'getValidatorStats':
        return encodeError(UNKNOWN_QUERY_CODE, 'unknown query');
      case 'runSmcMethod':
        return runMethod(
          options.jettons,
          masterchain,
          `${request.workchain}:${request.account.toString('hex').toUpperCase()}`,
          request.methodId,
          request.params,
        );
    }
  };

  return { answer };
}
