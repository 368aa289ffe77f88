import type { Config, WatchedWallet } from '../../domain/config.js';
import { decimalsOf, jettonUnits, type JettonsSnapshot } from '../../domain/jettons.js';
import { isFresh, staleFrom } from '../../snapshot/freshness.js';
import type { WalletCell, WalletColumns } from '../provisions.js';
import { jettonsOf } from './config.js';

/**
 * The wallets' table's jetton columns (the status page): one per configured jetton, each
 * wallet's fresh balance in jetton units where it is watched for it, its threshold, and
 * whether it is under it.
 */
export function jettonColumns(config: () => Config, snapshot: () => JettonsSnapshot | null): WalletColumns {
  return {
    names: () => config().jettons.map((j) => j.name),
    version: () => [config().jettons, snapshot()],
    validUntil(now) {
      const { maxAgeSeconds } = config().snapshot;
      let until = Infinity;
      for (const records of snapshot()?.jettons.values() ?? []) {
        for (const record of records.values()) {
          const stale = staleFrom(record.fetchedAt, maxAgeSeconds);
          if (stale > now && stale < until) until = stale;
        }
      }
      return until;
    },
    cells(wallet: WatchedWallet, now: number): readonly WalletCell[] {
      const settings = config();
      if (settings.jettons.length === 0) return [];
      const watched = jettonsOf(settings, wallet);
      const held = snapshot();
      return settings.jettons.map((jetton) => {
        if (!watched.includes(jetton.name)) return { balance: null, min: null, below: false };
        const record = held?.jettons.get(jetton.name)?.get(wallet.raw);
        const fresh = record !== undefined && isFresh(record.fetchedAt, now, settings.snapshot.maxAgeSeconds);
        const places = decimalsOf(jetton, held);
        const balance = fresh && places !== null ? jettonUnits(record.balance, places) : null;
        const min = wallet.minJettonBalance?.[jetton.name] ?? null;
        return { balance, min, below: balance !== null && min !== null && Number(balance) < min };
      });
    },
  };
}
