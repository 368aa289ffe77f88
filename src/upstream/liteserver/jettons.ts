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
import { decodeMasterchainInfo, type LiteBlockId, type LiteRequest } from '../../ton/lite-api.js';
import { decodeRunMethodResult } from '../../ton/run-method.js';
import { UpstreamError } from '../errors.js';
import { ACCOUNTS_IN_FLIGHT_PER_SERVER, walletStatesOf, type LiteCall } from './account-states.js';

/**
 * Jetton balances from a liteserver (TEP-74), in the shape the indexer answers: for each
 * owner, the master's `get_wallet_address(owner)` gives its jetton wallet (it never
 * changes: asked once per owner and master, then kept; those the snapshot holds, `known`,
 * are not asked at all), and the wallet's
 * `get_wallet_data()` gives the balance, both run by `liteServer.runSmcMethod` at the last
 * masterchain block. A wallet whose get-method cannot run is looked up: not deployed (or
 * not active) means the owner holds none of the jetton, so it has no row, as in the
 * indexer's answer; anything else is a failure. Every row comes in the first page.
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
  const rows: JettonWalletRow[] = [];
  let failure: UpstreamError | undefined;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < owners.length) {
      const owner = owners[next] as string;
      next += 1;
      const row = await rowOf(owner);
      if (!row.ok) failure ??= row.error;
      else if (row.value !== null) rows.push(row.value);
    }
  };
  const rowOf = async (owner: string): Promise<Result<JettonWalletRow | null, UpstreamError>> => {
    const key = `${master}/${owner}`;
    let wallet = wallets.known?.get(owner) ?? wallets.kept.get(key);
    if (wallet === undefined) {
      const found = await run(master, GET_WALLET_ADDRESS, walletAddressParams(owner));
      if (!found.ok) return found;
      const address = stackOf(found.value, 'get_wallet_address', master, readWalletAddress);
      if (!address.ok) return address;
      wallet = address.value;
      wallets.kept.set(key, wallet);
    }
    const data = await run(wallet, GET_WALLET_DATA, Buffer.alloc(0));
    if (!data.ok) {
      if (data.error.code !== 'liteserver_error') return data;
      // The get-method did not run: a wallet never deployed holds nothing; say so only when its state says so.
      const state = await walletStatesOf(call, servers, [wallet], 'jetton', signal, 'jetton_wallets');
      if (!state.ok) return state;
      const status = state.value.wallets[0]?.status ?? 'nonexist';
      return status === 'active' ? data : { ok: true, value: null };
    }
    const read = stackOf(data.value, 'get_wallet_data', wallet, readWalletData);
    if (!read.ok) return read;
    if (read.value.master !== master || read.value.owner !== owner) {
      return {
        ok: false,
        error: new UpstreamError('bad_body', `get_wallet_data of ${wallet} names another owner or master`, { upstream: '', query: 'jetton_wallets' }),
      };
    }
    return {
      ok: true,
      value: { address: wallet, balance: read.value.balance, owner, jetton: master, last_transaction_lt: '0', code_hash: null, data_hash: null },
    };
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(owners.length, servers * ACCOUNTS_IN_FLIGHT_PER_SERVER)) }, worker));
  if (failure !== undefined) return { ok: false, error: failure };
  return { ok: true, value: { jetton_wallets: rows, address_book: {} } };
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
