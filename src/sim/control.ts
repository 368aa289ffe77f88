import type { ServerResponse } from 'node:http';
import type { SimChain } from './chain.js';
import { FAILURE_KINDS, isFailureKind, type FailureKind } from './failures.js';
import { LITESERVER_FAULTS, isLiteserverFault, type SimLiteserver } from './liteserver.js';
import { isScenario } from './scenarios.js';
import type { SimJettons } from './jettons.js';
import type { LoadMeter } from './load-meter.js';
import type { SimWallets } from './wallets.js';

/** The simulator's control API under /_sim/: step, scenario, inject, lag, liteserver faults, state, accounts, load. */
export interface SimControlDeps {
  readonly step: () => void;
  readonly chain: SimChain;
  readonly wallets: SimWallets;
  readonly jettons: SimJettons;
  readonly liteserver: SimLiteserver | null;
  inject(kind: FailureKind, count: number): void;
  lag(): { blocks: number; indexer: number };
  setLag(lag: { blocks: number; indexer: number }): void;
  stats(): { stats: Record<string, number>; requests: Record<string, number> };
  readonly load: LoadMeter;
}

export function createSimControl(deps: SimControlDeps): (url: URL, res: ServerResponse) => void {
  const { chain, wallets } = deps;
  const send = (res: ServerResponse, status: number, body: string): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
  return (url, res) => {
    const param = (name: string): string => url.searchParams.get(name) ?? '';
    switch (url.pathname) {
      case '/_sim/step': {
        const n = Math.min(100_000, Math.max(1, Number(param('n')) || 1));
        for (let i = 0; i < n; i += 1) deps.step();
        break;
      }
      case '/_sim/scenario':
        if (!isScenario(param('name'))) return send(res, 400, JSON.stringify({ error: `unknown scenario "${param('name')}"` }));
        chain.setScenario(param('name') as Parameters<SimChain['setScenario']>[0]);
        break;
      case '/_sim/inject': {
        const kind = param('kind');
        if (!isFailureKind(kind)) return send(res, 400, JSON.stringify({ error: `unknown failure kind "${kind}"; one of ${FAILURE_KINDS.join(', ')}` }));
        deps.inject(kind, Math.min(1000, Math.max(1, Number(param('count')) || 1)));
        break;
      }
      case '/_sim/lag': {
        const blocks = Number(param('blocks') || 0);
        const indexer = Number(param('indexer') || 0);
        if (!Number.isInteger(blocks) || blocks < 0 || !Number.isInteger(indexer) || indexer < 0) {
          return send(res, 400, JSON.stringify({ error: 'blocks and indexer must be integers ≥ 0' }));
        }
        deps.setLag({ blocks, indexer });
        break;
      }
      case '/_sim/liteserver': {
        const { liteserver } = deps;
        if (liteserver === null) return send(res, 404, JSON.stringify({ error: 'this simulator serves no liteserver (--liteserver-port)' }));
        const fault = param('fault');
        if (fault !== '' && !isLiteserverFault(fault)) {
          return send(res, 400, JSON.stringify({ error: `unknown liteserver fault "${fault}"; one of ${LITESERVER_FAULTS.join(', ')}` }));
        }
        if (fault !== '') liteserver.setFault(fault);
        const queueSizes = param('queueSizes');
        if (queueSizes !== '') liteserver.setWithoutQueueSizes(queueSizes === 'off');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ publicKey: liteserver.publicKey, stats: liteserver.stats() }));
        return;
      }
      case '/_sim/state':
        break;
      case '/_sim/jettons': {
        // ?owner=&master=&balance= sets one balance (base units); the answer lists masters and jetton wallets.
        if (param('owner') !== '') {
          if (!/^\d+$/.test(param('balance'))) return send(res, 400, JSON.stringify({ error: 'balance must be a non-negative integer (base units)' }));
          if (!deps.jettons.setBalance(param('owner'), param('master'), BigInt(param('balance')))) {
            return send(res, 404, JSON.stringify({ error: 'that owner holds no jetton wallet of that master' }));
          }
        }
        const { jettons } = deps;
        return send(
          res,
          200,
          JSON.stringify({
            jettons: jettons.jettons,
            wallets: jettons.wallets().map((w) => ({ address: w.address, owner: w.owner, jetton: w.jetton, balance: w.balance.toString() })),
          }),
        );
      }
      case '/_sim/load': {
        const { addresses, ...read } = deps.load.read();
        if (param('reset') === '1') deps.load.reset();
        // ?summary=1 leaves the per-address counts out (a million of them at scale).
        return send(res, 200, JSON.stringify(param('summary') === '1' ? read : { ...read, addresses }));
      }
      case '/_sim/accounts':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(wallets.accounts().map((a) => ({ raw: a.raw, kind: a.kind, balance: a.balance.toString(), seqno: a.seqno, lt: a.lt.toString() }))),
        );
        return;
      default:
        return send(res, 404, JSON.stringify({ error: 'unknown control endpoint' }));
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        scenario: chain.scenario,
        height: chain.height,
        lag: deps.lag(),
        limit: chain.limit,
        queues: chain.queues(),
        wallets: wallets.accounts().length,
        ...(({ stats, requests }) => ({ stats, requests }))(deps.stats()),
      }),
    );
  };
}
