import { JSON_TYPE } from '../../serve/response.js';
import { getOnly } from '../../serve/routes.js';
import type { Route } from '../../serve/route.js';
import type { FeatureContext } from '../feature.js';
import type { createWalletTable, WalletTableSources } from './status.js';
import type { WalletsSnapshot } from './types.js';
import { createWalletStatesHandler } from './v3.js';

export interface WalletsRoutesDeps {
  readonly ctx: Pick<FeatureContext, 'now' | 'wallOffset' | 'current' | 'provided'>;
  readonly held: () => WalletsSnapshot | null;
  /** Whether the persisted wallets file is still being read. */
  readonly loading: () => boolean;
  readonly table: ReturnType<typeof createWalletTable>;
  readonly tableSources: (now: number) => WalletTableSources;
}

/**
 * `GET /api/v3/walletStates` from the wallets held (and from read-through, for unwatched
 * addresses, where a feature provides it and the config turns it on), and the status
 * page's `/api/status/wallets` (a page of the wallets' table, as JSON).
 */
export function walletsRoutes(deps: WalletsRoutesDeps): readonly (readonly [string, Route])[] {
  const { ctx } = deps;
  const handler = createWalletStatesHandler(ctx.wallOffset);
  const walletStates: Route = {
    endpoint: 'wallet_states',
    handle: (request) => {
      const { config, scheduler, watched } = ctx.current();
      const unwatched = ctx.provided.all('unwatched').find((lookup) => lookup.settings().enabled) ?? null;
      return handler.serve(deps.held(), {
        method: request.method,
        query: request.query,
        now: ctx.now(),
        maxAgeSeconds: config.snapshot.maxAgeSeconds,
        nextPollDueAt: scheduler.nextRunAt('wallets'),
        testnet: config.testnet,
        watched,
        loading: deps.loading(),
        readThrough: unwatched,
        readThroughTtlSeconds: unwatched?.settings().ttlSeconds ?? 0,
        client: request.client ?? '',
      });
    },
  };
  const page = getOnly('status', (request) => {
    const params = new URLSearchParams(request.query);
    const pageNumber = Math.max(1, Math.floor(Number(params.get('page') ?? '1')) || 1);
    const body = JSON.stringify(deps.table.page(deps.tableSources(ctx.now()), params.get('q') ?? '', pageNumber, params.get('sort') ?? ''));
    return { status: 200, headers: { 'content-type': JSON_TYPE, 'cache-control': 'no-cache' }, body };
  });
  return [
    ['/api/v3/walletStates', walletStates],
    ['/api/status/wallets', page],
  ];
}
