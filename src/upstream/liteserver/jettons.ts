import type { JettonWalletRow, JettonWalletsAnswer } from '../../domain/jettons.js';
import type { JettonPage, Result } from '../../domain/upstream.js';
import {
  GET_JETTON_DATA,
  GET_WALLET_ADDRESS,
  GET_WALLET_DATA,
  readJettonContent,
  readWalletAddress,
  readWalletData,
  walletAddressParams,
} from '../../ton/get-methods.js';
import { type LiteBlockId, type LiteRequest } from '../../ton/lite-api.js';
import { decodeMasterchainInfo } from '../../ton/lite-answers.js';
import { decodeRunMethodResult } from '../../ton/run-method.js';
import { UpstreamError } from '../errors.js';
import { ACCOUNTS_IN_FLIGHT_PER_SERVER, walletStatesOf, type LiteCall } from './account-states.js';

/**
 * Jetton balances from a liteserver (TEP-74), in the shape the indexer answers, in three
 * steps at the last masterchain block, each one lite API call per owner at most, inside
 * the budget: (1) each owner's jetton wallet from the master's `get_wallet_address(owner)`
 * (the answer never changes: asked once per owner and master, then kept; those the
 * snapshot holds, `known`, are not asked at all); (2) the state of the wallets not known to
 * be deployed, in one batch (most deposit addresses never hold the jetton: not deployed
 * means no row, as in the indexer's answer, and no get-method that would fail); (3) each
 * deployed wallet's `get_wallet_data()` for the balance. Every row comes in the first page.
 */
export async function jettonWalletsOf(
  call: LiteCall,
  servers: number,
  owners: readonly string[],
  master: string,
  page: JettonPage,
  wallets: { readonly kept: Map<string, string>; readonly known: ReadonlyMap<string, string> | undefined },
  signal: AbortSignal | undefined,
): Promise<Result<JettonWalletsAnswer, UpstreamError>> {
  if (page.offset > 0) return { ok: true, value: { jetton_wallets: [], address_book: {} } };
  const info = await call('jetton_wallets', 'jetton', { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);
  if (!info.ok) return info;
  const block = info.value.last;
  const run = (account: string, methodId: bigint, params: Buffer) =>
    call('jetton_wallets', 'jetton', runRequest(block, account, methodId, params), decodeRunMethodResult, signal);
  const inFlight = Math.max(1, servers * ACCOUNTS_IN_FLIGHT_PER_SERVER);

  // (1) Where each owner's jetton wallet is.
  const walletOf = new Map<string, string>();
  const unknown: string[] = [];
  const located = await eachOf(owners, inFlight, async (owner) => {
    const key = `${master}/${owner}`;
    const known = wallets.known?.get(owner);
    let wallet = known ?? wallets.kept.get(key);
    if (wallet === undefined) {
      const found = await run(master, GET_WALLET_ADDRESS, walletAddressParams(owner));
      if (!found.ok) return found;
      const address = stackOf(found.value, 'get_wallet_address', master, readWalletAddress);
      if (!address.ok) return address;
      wallet = address.value;
      wallets.kept.set(key, wallet);
    }
    walletOf.set(owner, wallet);
    if (known === undefined) unknown.push(owner);
    return { ok: true, value: undefined };
  });
  if (!located.ok) return located;

  // (2) Which of the wallets not known to be deployed are.
  const deployed = new Set(owners.filter((owner) => wallets.known?.has(owner) === true));
  if (unknown.length > 0) {
    const states = await walletStatesOf(
      call,
      servers,
      unknown.map((owner) => walletOf.get(owner) as string),
      'jetton',
      signal,
      'jetton_wallets',
    );
    if (!states.ok) return states;
    const active = new Set(states.value.wallets.filter((w) => w.status === 'active').map((w) => w.address));
    for (const owner of unknown) if (active.has(walletOf.get(owner) as string)) deployed.add(owner);
  }

  // (3) The deployed wallets' balances.
  const rows: JettonWalletRow[] = [];
  const read = await eachOf([...deployed], inFlight, async (owner) => {
    const wallet = walletOf.get(owner) as string;
    const data = await run(wallet, GET_WALLET_DATA, Buffer.alloc(0));
    if (!data.ok) return data;
    const walletData = stackOf(data.value, 'get_wallet_data', wallet, readWalletData);
    if (!walletData.ok) return walletData;
    if (walletData.value.master !== master || walletData.value.owner !== owner) {
      return {
        ok: false,
        error: new UpstreamError('bad_body', `get_wallet_data of ${wallet} names another owner or master`, { upstream: '', query: 'jetton_wallets' }),
      };
    }
    rows.push({ address: wallet, balance: walletData.value.balance, owner, jetton: master, last_transaction_lt: '0', code_hash: null, data_hash: null });
    return { ok: true, value: undefined };
  });
  if (!read.ok) return read;
  return { ok: true, value: { jetton_wallets: rows, address_book: {} } };
}

/** Runs `task` for every item, `inFlight` at a time; the first failure stops the rest and is the answer. */
async function eachOf<T>(
  items: readonly T[],
  inFlight: number,
  task: (item: T) => Promise<Result<undefined, UpstreamError>>,
): Promise<Result<undefined, UpstreamError>> {
  let failure: UpstreamError | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < items.length) {
      const item = items[next] as T;
      next += 1;
      const done = await task(item);
      if (!done.ok) failure ??= done.error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, Math.max(1, items.length)) }, worker));
  return failure === undefined ? { ok: true, value: undefined } : { ok: false, error: failure };
}

function runRequest(block: LiteBlockId, account: string, methodId: bigint, params: Buffer): LiteRequest {
  const [workchain, hex] = account.split(':') as [string, string];
  return { kind: 'runSmcMethod', id: block, workchain: Number(workchain), account: Buffer.from(hex, 'hex'), methodId, params };
}

/** A get-method's result stack read by `read`, or why not (an exit code other than 0 or 1, no stack, an unreadable one). */
function stackOf<T>(result: { exitCode: number; result: Buffer | null }, method: string, account: string, read: (boc: Buffer) => T): Result<T, UpstreamError> {
  const fail = (why: string): Result<T, UpstreamError> => ({
    ok: false,
    error: new UpstreamError('bad_body', `${method} on ${account}: ${why}`, { upstream: '', query: 'jetton_wallets' }),
  });
  if (result.exitCode !== 0 && result.exitCode !== 1) return fail(`exit code ${result.exitCode}`);
  if (result.result === null) return fail('no result stack');
  try {
    return { ok: true, value: read(result.result) };
  } catch (err) {
    return fail(`unreadable result stack: ${(err as Error).message}`);
  }
}

/** The master's metadata (TEP-64 content) from its get_jetton_data, at the last masterchain block. */
export async function jettonMetadataOf(
  call: LiteCall,
  master: string,
  signal: AbortSignal | undefined,
): Promise<Result<Readonly<Record<string, unknown>>, UpstreamError>> {
  const info = await call('jetton_wallets', 'jetton', { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);
  if (!info.ok) return info;
  const data = await call('jetton_wallets', 'jetton', runRequest(info.value.last, master, GET_JETTON_DATA, Buffer.alloc(0)), decodeRunMethodResult, signal);
  if (!data.ok) return data;
  return stackOf(data.value, 'get_jetton_data', master, readJettonContent);
}
