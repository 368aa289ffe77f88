import { addressBookEntry } from '../../accounts/address-book.js';
import { JETTON_WALLETS_API_PATH, type JettonsSnapshot } from '../../domain/jettons.js';
import type { Route } from '../../serve/route.js';
import type { FeatureContext } from '../feature.js';
import { createJettonWalletsHandler } from './v3.js';

/** `GET /api/v3/jetton/wallets` from the balances held, the owners' address book entries from the wallets' (where a feature provides them). */
export function jettonsRoute(deps: {
  readonly ctx: Pick<FeatureContext, 'now' | 'wallOffset' | 'current' | 'provided'>;
  readonly view: () => JettonsSnapshot | null;
  readonly loading: () => boolean;
}): readonly [string, Route] {
  const { ctx } = deps;
  const handler = createJettonWalletsHandler(ctx.wallOffset);
  return [
    JETTON_WALLETS_API_PATH,
    {
      endpoint: 'jetton_wallets',
      handle: (request) => {
        const { config, watched, scheduler } = ctx.current();
        const [book] = ctx.provided.all('addressBook');
        return handler.serve(deps.view(), {
          method: request.method,
          query: request.query,
          now: ctx.now(),
          maxAgeSeconds: config.snapshot.maxAgeSeconds,
          nextPollDueAt: scheduler.nextRunAt('jetton_wallets'),
          testnet: config.testnet,
          watched,
          jettons: config.jettons,
          ownerBook: book ?? ((raw) => addressBookEntry(undefined, raw, config.testnet)),
          loading: deps.loading(),
        });
      },
    },
  ];
}
