import { JETTON_WALLETS_API_PATH } from '../../domain/jettons.js';
import { compactForm } from '../../ton/address.js';
import type { UpstreamCalls } from '../calls.js';
import { createAttempt, type HttpUpstreamDeps } from './attempt.js';
import { httpChainCalls } from './chain.js';
import { UpstreamError } from '../errors.js';
import {
  indexerMasterchainInfoSchema,
  jettonMastersResponseSchema,
  jettonWalletsResponseSchema,
  masterchainInfoEnvelopeSchema,
  outMsgQueueSizesEnvelopeSchema,
} from './schemas.js';
import { walletStatesDecoder } from './wallet-states.js';
import { WALLET_STATES_PATH } from './urls.js';

/**
 * A `kind: http` upstream: toncenter's HTTP API through undici, one request per call inside
 * the upstream's budget, each counted in tonwatch_upstream_requests_total by HTTP status or
 * error class.
 */

/** Both spellings of the v2 path: the Python server answers the plural, the C++ server the singular. */
export const QUEUE_SIZES_PATHS = ['/api/v2/getOutMsgQueueSizes', '/api/v2/getOutMsgQueueSize'] as const;
const JETTON_WALLETS_PATH = JETTON_WALLETS_API_PATH;
const JETTON_MASTERS_PATH = '/api/v3/jetton/masters';
const MASTERCHAIN_INFO_PATH = '/api/v2/getMasterchainInfo';
const INDEXER_MASTERCHAIN_INFO_PATH = '/api/v3/masterchainInfo';

export function createHttpUpstream(deps: HttpUpstreamDeps): UpstreamCalls {
  const { settings: upstream, logger } = deps;
  const attempt = createAttempt(deps);
  /** Index into QUEUE_SIZES_PATHS that this upstream answers, learned from 404s. */
  let queuePathIndex = 0;

  /** The v2 query: on a 404, try the other path spelling and remember it. */
  async function attemptQueueSizes(signal: AbortSignal | undefined) {
    const preferred = queuePathIndex;
    const spec = { query: 'queue_sizes', priority: 'high', schema: outMsgQueueSizesEnvelopeSchema } as const;
    const first = await attempt({ ...spec, path: QUEUE_SIZES_PATHS[preferred] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (first.ok || first.error.code !== 'not_found') return first;
    const other = 1 - preferred;
    const second = await attempt({ ...spec, path: QUEUE_SIZES_PATHS[other] ?? QUEUE_SIZES_PATHS[0] }, signal);
    if (second.ok || second.error.code !== 'not_found') {
      queuePathIndex = other;
      logger.info({ upstream: upstream.name, path: QUEUE_SIZES_PATHS[other] }, 'upstream answers the other v2 path spelling; using it from now on');
    }
    return second;
  }

  return {
    name: upstream.name,
    async queueSizes(signal) {
      const result = await attemptQueueSizes(signal);
      if (!result.ok) return result;
      const { result: body, '@extra': topExtra } = result.value;
      return { ok: true, value: { ...body, extra: body['@extra'] ?? topExtra } };
    },
    walletStates(addresses, priority, signal) {
      // The shortest accepted forms, comma-separated: 49 bytes an address, none escaped, so
      // the most addresses fit behind a proxy's request-line limit (nginx: 8 KiB).
      const search = `address=${addresses.map(compactForm).join(',')}`;
      return attempt({ query: 'wallets', priority, path: WALLET_STATES_PATH, search, schema: walletStatesDecoder }, signal);
    },
    jettonWallets(owners, master, page, signal) {
      const search = [
        `jetton_address=${compactForm(master)}`,
        `limit=${page.limit}`,
        `offset=${page.offset}`,
        ...owners.map((owner) => `owner_address=${compactForm(owner)}`),
      ].join('&');
      return attempt({ query: 'jetton_wallets', priority: 'jetton', path: JETTON_WALLETS_PATH, search, schema: jettonWalletsResponseSchema }, signal);
    },
    async jettonMetadata(master, signal) {
      const search = `address=${compactForm(master)}&limit=1`;
      const answer = await attempt(
        { query: 'jetton_wallets', priority: 'jetton', path: JETTON_MASTERS_PATH, search, schema: jettonMastersResponseSchema },
        signal,
      );
      if (!answer.ok) return answer;
      const found = answer.value.jetton_masters.find((m) => m.address === master);
      if (found !== undefined) return { ok: true, value: found.jetton_content ?? {} };
      return {
        ok: false,
        error: new UpstreamError('bad_body', `the indexer does not know the jetton master ${master}`, { upstream: upstream.name, query: 'jetton_wallets' }),
      };
    },
    /** Its v2 masterchain seqno and its v3 indexer's, each asked once. */
    async tip(signal) {
      const spec = { query: 'lag_check', priority: 'high' } as const;
      const [v2, v3] = await Promise.all([
        attempt({ ...spec, path: MASTERCHAIN_INFO_PATH, schema: masterchainInfoEnvelopeSchema }, signal),
        attempt({ ...spec, path: INDEXER_MASTERCHAIN_INFO_PATH, schema: indexerMasterchainInfoSchema }, signal),
      ]);
      for (const failed of [v2, v3]) {
        if (!failed.ok && failed.error.code !== 'aborted') {
          logger.debug({ upstream: upstream.name, code: failed.error.code, err: failed.error.message }, 'lag check: tip request failed');
        }
      }
      return { upstream: upstream.name, seqno: v2.ok ? v2.value.result.last.seqno : null, indexerSeqno: v3.ok ? v3.value.last.seqno : null };
    },
    ...httpChainCalls(upstream.name, attempt),
    close: () => undefined,
  };
}
