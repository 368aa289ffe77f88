import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import type { ChainHeadsAnswer, ConfigParamsAnswer, GetMethodAnswer, ValidatorStatsAnswer } from '../domain/chain.js';
import type { JettonWalletsAnswer } from '../domain/jettons.js';
import type { JettonPage, QueueSizesAnswer, Result, UpstreamObserver, UpstreamTip, WalletStatesAnswer } from '../domain/upstream.js';
import type { RequestBudget, RequestPriority } from './budget.js';
import type { UpstreamError } from './errors.js';

/**
 * One upstream's calls, whatever its kind (http-upstream.ts, liteserver/upstream.ts): each
 * is one attempt against that upstream inside its budget, every request counted; retries
 * and failover across upstreams are client.ts's.
 */
export interface UpstreamCalls {
  readonly name: string;
  queueSizes(signal: AbortSignal | undefined): Promise<Result<QueueSizesAnswer, UpstreamError>>;
  /** For these canonical raw keys; answers are matched by address. */
  walletStates(addresses: readonly string[], priority: RequestPriority, signal: AbortSignal | undefined): Promise<Result<WalletStatesAnswer, UpstreamError>>;
  /** One page of the jetton wallets of these owners for one master (canonical raw keys). */
  jettonWallets(
    owners: readonly string[],
    master: string,
    page: JettonPage,
    signal: AbortSignal | undefined,
    known?: ReadonlyMap<string, string>,
  ): Promise<Result<JettonWalletsAnswer, UpstreamError>>;
  /** A jetton master's metadata (TEP-64 content). */
  jettonMetadata(master: string, signal: AbortSignal | undefined): Promise<Result<Readonly<Record<string, unknown>>, UpstreamError>>;
  /** Its tip for the lag check, each part asked once; null where it did not answer. */
  tip(signal: AbortSignal | undefined): Promise<UpstreamTip>;
  /** Every chain's newest block with its gen_utime. */
  chainHeads(signal: AbortSignal | undefined): Promise<Result<ChainHeadsAnswer, UpstreamError>>;
  /** These config parameters' value cells (BoCs). */
  configParams(params: readonly number[], signal: AbortSignal | undefined): Promise<Result<ConfigParamsAnswer, UpstreamError>>;
  /** A get-method without arguments on a masterchain account. */
  getMethod(address: string, method: string, signal: AbortSignal | undefined): Promise<Result<GetMethodAnswer, UpstreamError>>;
  /** Blocks created per validator; `unsupported` where the kind has no such call. */
  validatorStats(signal: AbortSignal | undefined): Promise<Result<ValidatorStatsAnswer, UpstreamError>>;
  /** Closes the connections it keeps. */
  close(): void;
}

/** What every kind is made with, beside its settings: its own budget, and the shared observer, logger and clocks. */
export interface UpstreamCallsDeps {
  readonly budget: RequestBudget;
  readonly observer: UpstreamObserver;
  readonly logger: Logger;
  /** The process clock (domain/clock.ts): budgets and durations. */
  readonly now: () => number;
  /** The wall clock, for a Retry-After given as an HTTP date. */
  readonly wall: () => number;
  readonly userAgent: string;
  /** HTTP: tests pass a MockAgent or a pool bound to the simulator. */
  readonly dispatcher?: Dispatcher | undefined;
}
