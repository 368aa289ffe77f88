import type { ServerResponse } from 'node:http';
import type { SimChain } from './chain.js';
import { FAILURE_KINDS, isFailureKind, type FailureKind } from './failures.js';
import { LITESERVER_FAULTS, isLiteserverFault, type SimLiteserver } from './liteserver.js';
import { isScenario } from './scenarios.js';
import type { SimJettons } from './jettons.js';
import type { LoadMeter } from './load-meter.js';
import type { SimWallets } from './wallets.js';
import type { SimValidators } from './validators.js';

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
  readonly validators: SimValidators;
  readonly now: () => number;
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
      case '/_sim/chain': {
        // ?stall=masterchain|0:<shard hex> stops that chain's blocks; ?resume=… (or all) lets it go on.
        for (const [key, stalled] of [
          ['stall', true],
          ['resume', false],
        ] as const) {
          const name = param(key);
          if (name === '') continue;
          const names = name === 'all' && !stalled ? chain.stalled() : [name];
          if (!names.every((n) => chain.stall(n, stalled)))
            return send(res, 404, JSON.stringify({ error: `no chain "${name}": masterchain, or 0:<16 hex digits>` }));
        }
        return send(
          res,
          200,
          JSON.stringify({
            stalled: chain.stalled(),
            heads: chain.queues().map(({ workchain, shard, seqno, genUtime }) => ({ workchain, shard, seqno, genUtime })),
          }),
        );
      }
      case '/_sim/validators':
        return validatorControl(deps, param, (status, body) => send(res, status, body));
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

/**
 * /_sim/validators: ?drop=<key> keeps a validator out of the elections that close from now
 * on (?restore=<key> lets it back), ?complain=<key> files a complaint against it,
 * ?idle=<key> stops it creating blocks (?busy=<key> again); the answer is the pool, the
 * sets, the open election and the past elections.
 */
function validatorControl(deps: SimControlDeps, param: (name: string) => string, send: (status: number, body: string) => void): void {
  const { validators } = deps;
  const now = Math.floor(deps.now() / 1000);
  const actions: [string, (key: string) => boolean][] = [
    ['drop', (key) => validators.drop(key, true)],
    ['restore', (key) => validators.drop(key, false)],
    ['complain', (key) => validators.complain(key, now)],
    ['idle', (key) => validators.idle(key, true)],
    ['busy', (key) => validators.idle(key, false)],
  ];
  for (const [name, act] of actions) {
    const key = param(name).toLowerCase();
    if (key !== '' && !act(key))
      return send(404, JSON.stringify({ error: `${name}: no such validator in the pool (or, for complain, in the newest past election)` }));
  }
  const stake = (s: { validator: { publicKey: string }; stake: bigint }) => ({ publicKey: s.validator.publicKey, stake: s.stake.toString() });
  const set = (x: { since: number; until: number; main: number; members: readonly { validator: { publicKey: string }; stake: bigint }[] } | null) =>
    x === null ? null : { since: x.since, until: x.until, main: x.main, members: x.members.map(stake) };
  const { previous, current, next } = validators.sets(now);
  const election = validators.election(now);
  send(
    200,
    JSON.stringify({
      now,
      timing: validators.timing,
      pool: validators.pool,
      sets: { previous: set(previous), current: set(current), next: set(next) },
      election: election === null ? null : { id: election.id, closesAt: election.closesAt, participants: election.participants.map(stake) },
      pastElections: validators.pastElections(now).map((p) => ({ id: p.id, unfreezeAt: p.unfreezeAt, frozen: p.frozen.map(stake), complaints: p.complaints })),
    }),
  );
}
