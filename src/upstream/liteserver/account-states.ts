import { Cell } from '@ton/core';
import type { Result, UpstreamQuery, WalletStatesAnswer } from '../../domain/upstream.js';
import type { ServedWalletState } from '../../domain/wallet-state.js';
import { type LiteRequest } from '../../ton/lite-api.js';
import { decodeAccountState, decodeMasterchainInfo } from '../../ton/lite-answers.js';
import { lookupShardAccount } from '../../ton/shard-accounts.js';
import { walletStateOfAccount } from '../../ton/wallet-account.js';
import type { RequestPriority } from '../budget.js';
import type { UpstreamError } from '../errors.js';

/** getAccountState calls in flight at once per liteserver of the upstream. */
export const ACCOUNTS_IN_FLIGHT_PER_SERVER = 4;

/** One getAccountState answer as a walletStates row; null when the account does not exist. Throws on an unreadable answer. */
export function accountRow(raw: string, answer: Buffer): ServedWalletState | null {
  const decoded = decodeAccountState(answer);
  const account = decoded.state.length === 0 ? undefined : Cell.fromBoc(decoded.state)[0];
  if (account === undefined) return null;
  // Two roots: the shard block's proof, then the shard state's, which holds the ShardAccount.
  const stateProof = Cell.fromBoc(decoded.proof)[1];
  if (stateProof === undefined) throw new Error('the proof has no second root (the shard state)');
  const hash = Buffer.from(raw.slice(raw.indexOf(':') + 1), 'hex');
  const shardAccount = lookupShardAccount(stateProof, hash);
  const row = walletStateOfAccount(raw, account, shardAccount);
  if (row !== null && shardAccount === null) throw new Error('the account exists but the state proof does not hold it');
  return row;
}

/** One lite API call inside the budget, decoded (liteCallOf in upstream.ts). */
export type LiteCall = <T>(
  query: UpstreamQuery,
  priority: RequestPriority,
  request: LiteRequest,
  decode: (answer: Buffer) => T,
  signal: AbortSignal | undefined,
) => Promise<Result<T, UpstreamError>>;

/**
 * The states of `addresses` at the last masterchain block, `servers` liteservers' worth of
 * getAccountState calls in flight; the first failure stops the rest.
 */
export async function walletStatesOf(
  call: LiteCall,
  servers: number,
  addresses: readonly string[],
  priority: RequestPriority,
  signal: AbortSignal | undefined,
  query: UpstreamQuery = 'wallets',
): Promise<Result<WalletStatesAnswer, UpstreamError>> {
  const info = await call(query, priority, { kind: 'getMasterchainInfo' }, decodeMasterchainInfo, signal);
  if (!info.ok) return info;
  const block = info.value.last;
  const wallets: ServedWalletState[] = [];
  let failure: UpstreamError | undefined;
  // The first failure stops the rest: the batch is answered whole or not at all, and
  // failover asks the next upstream for all of it.
  const stop = new AbortController();
  const combined = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < addresses.length) {
      const raw = addresses[next] as string;
      next += 1;
      const [workchain, hex] = raw.split(':') as [string, string];
      const request: LiteRequest = { kind: 'getAccountState', id: block, workchain: Number(workchain), account: Buffer.from(hex, 'hex') };
      const decode = (answer: Buffer) => accountRow(raw, answer);
      let result = await call(query, priority, request, decode, combined);
      // One more try, on the next liteserver in turn, before the batch fails.
      if (!result.ok && result.error.retryable && failure === undefined) result = await call(query, priority, request, decode, combined);
      if (!result.ok) {
        if (failure === undefined && !(result.error.code === 'aborted' && signal?.aborted !== true)) failure = result.error;
        stop.abort();
        return;
      }
      if (result.value !== null) wallets.push(result.value);
    }
  };
  const inFlight = Math.max(1, Math.min(addresses.length, servers * ACCOUNTS_IN_FLIGHT_PER_SERVER));
  await Promise.all(Array.from({ length: inFlight }, worker));
  if (failure !== undefined) return { ok: false, error: failure };
  return { ok: true, value: { wallets, address_book: {}, metadata: {} } };
}
