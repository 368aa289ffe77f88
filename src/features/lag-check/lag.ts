import type { Logger } from 'pino';
import type { QueryName } from '../../domain/queries.js';
import type { UpstreamClient, UpstreamLag, UpstreamTip } from '../../domain/upstream.js';

/**
 * Lag detection: every lagCheck.everySeconds each upstream is asked its masterchain tip (v2)
 * and its indexer's (v3). An upstream's lag is how far its tip is behind the most advanced
 * one; its indexer lag, how far its v3 indexer is behind its own v2 tip (wallet states from
 * it are that much older than they look). Past maxLagBlocks an upstream is passed over:
 * for both polls when its tip lags, for the wallet poll when its indexer does.
 */

export interface LagState {
  /** The last check's findings, by upstream name (only upstreams of the config in force). */
  readonly current: () => ReadonlyMap<string, UpstreamLag>;
  /** Why `upstream` is to be passed over for `query`, or null. */
  lagging(upstream: string, query: QueryName): 'lagging' | 'indexer_lagging' | null;
  /** How far behind `upstream` is for `query` (its tip; for wallets, its indexer too), blocks; 0 when not known. */
  lagBlocks(upstream: string, query: QueryName): number;
  /** Records a check's tips. */
  record(tips: readonly UpstreamTip[], maxLagBlocks: number): void;
}

/** Tips → lags. Pure. */
export function lagsFrom(tips: readonly UpstreamTip[]): Map<string, UpstreamLag> {
  const known = tips.flatMap((t) => (t.seqno === null ? [] : [t.seqno]));
  const best = known.length === 0 ? undefined : Math.max(...known);
  return new Map(
    tips.map((tip) => [
      tip.upstream,
      {
        lagBlocks: tip.seqno === null || best === undefined ? undefined : best - tip.seqno,
        // An indexer a block ahead of the v2 answer asked a moment earlier is not behind.
        indexerLagBlocks: tip.seqno === null || tip.indexerSeqno === null ? undefined : Math.max(0, tip.seqno - tip.indexerSeqno),
      },
    ]),
  );
}

export function createLagState(logger: Logger): LagState {
  let lags = new Map<string, UpstreamLag>();
  let max = Number.POSITIVE_INFINITY;
  const behind = (value: number | undefined): boolean => value !== undefined && value > max;
  return {
    current: () => lags,
    lagging(upstream, query) {
      const lag = lags.get(upstream);
      if (lag === undefined) return null;
      if (behind(lag.lagBlocks)) return 'lagging';
      if (query === 'wallets' && behind(lag.indexerLagBlocks)) return 'indexer_lagging';
      return null;
    },
    lagBlocks(upstream, query) {
      const lag = lags.get(upstream);
      return Math.max(lag?.lagBlocks ?? 0, query === 'wallets' ? (lag?.indexerLagBlocks ?? 0) : 0);
    },
    record(tips, maxLagBlocks) {
      const before = lags;
      const beforeMax = max;
      lags = lagsFrom(tips);
      max = maxLagBlocks;
      for (const [upstream, lag] of lags) {
        const was = before.get(upstream);
        const wasBehind = was !== undefined && was.lagBlocks !== undefined && was.lagBlocks > beforeMax;
        if (behind(lag.lagBlocks) && !wasBehind)
          logger.warn({ upstream, lagBlocks: lag.lagBlocks, maxLagBlocks }, 'upstream is behind the chain tip; skipping it');
        if (!behind(lag.lagBlocks) && wasBehind) logger.info({ upstream, lagBlocks: lag.lagBlocks }, 'upstream caught up; using it again');
      }
    },
  };
}

/** One lag check: every upstream's tip, recorded. Resolves ok when at least one tip is known. */
export async function checkLag(
  deps: { readonly client: UpstreamClient; readonly state: LagState; readonly maxLagBlocks: number; readonly logger: Logger },
  signal?: AbortSignal,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const tips = await deps.client.fetchTips(signal);
  if (signal?.aborted) return { ok: false, error: 'aborted' };
  deps.state.record(tips, deps.maxLagBlocks);
  deps.logger.debug({ tips }, 'lag check');
  return tips.some((t) => t.seqno !== null) ? { ok: true } : { ok: false, error: 'no upstream told its tip' };
}
