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

/** A control endpoint's answer: a status and a JSON body; null sends the simulator's state. */
type Reply = { readonly status: number; readonly body: unknown } | null;
type Param = (name: string) => string;

const error = (status: number, message: string): Reply => ({ status, body: { error: message } });

/** The simulator's state: what /_sim/state and the endpoints that change something answer. */
function state(deps: SimControlDeps): unknown {
  const { chain } = deps;
  const { stats, requests } = deps.stats();
  return {
    scenario: chain.scenario,
    height: chain.height,
    lag: deps.lag(),
    limit: chain.limit,
    queues: chain.queues(),
    wallets: deps.wallets.accounts().length,
    stats,
    requests,
  };
}

/** Each endpoint under /_sim/, by path. */
const CONTROLS: Readonly<Record<string, (deps: SimControlDeps, param: Param) => Reply>> = {
  '/_sim/step'(deps, param) {
    const n = Math.min(100_000, Math.max(1, Number(param('n')) || 1));
    for (let i = 0; i < n; i += 1) deps.step();
    return null;
  },
  '/_sim/scenario'(deps, param) {
    const name = param('name');
    if (!isScenario(name)) return error(400, `unknown scenario "${name}"`);
    deps.chain.setScenario(name);
    return null;
  },
  '/_sim/inject'(deps, param) {
    const kind = param('kind');
    if (!isFailureKind(kind)) return error(400, `unknown failure kind "${kind}"; one of ${FAILURE_KINDS.join(', ')}`);
    deps.inject(kind, Math.min(1000, Math.max(1, Number(param('count')) || 1)));
    return null;
  },
  '/_sim/lag'(deps, param) {
    const blocks = Number(param('blocks') || 0);
    const indexer = Number(param('indexer') || 0);
    if (!Number.isInteger(blocks) || blocks < 0 || !Number.isInteger(indexer) || indexer < 0) return error(400, 'blocks and indexer must be integers ≥ 0');
    deps.setLag({ blocks, indexer });
    return null;
  },
  '/_sim/liteserver'(deps, param) {
    const { liteserver } = deps;
    if (liteserver === null) return error(404, 'this simulator serves no liteserver (--liteserver-port)');
    const fault = param('fault');
    if (fault !== '' && !isLiteserverFault(fault)) return error(400, `unknown liteserver fault "${fault}"; one of ${LITESERVER_FAULTS.join(', ')}`);
    if (fault !== '') liteserver.setFault(fault);
    const queueSizes = param('queueSizes');
    if (queueSizes !== '') liteserver.setWithoutQueueSizes(queueSizes === 'off');
    return { status: 200, body: { publicKey: liteserver.publicKey, stats: liteserver.stats() } };
  },
  '/_sim/state': () => null,
  '/_sim/chain'({ chain }, param) {
    // ?stall=masterchain|0:<shard hex> stops that chain's blocks; ?resume=… (or all) lets it go on.
    for (const [key, stalled] of [
      ['stall', true],
      ['resume', false],
    ] as const) {
      const name = param(key);
      if (name === '') continue;
      const names = name === 'all' && !stalled ? chain.stalled() : [name];
      if (!names.every((n) => chain.stall(n, stalled))) return error(404, `no chain "${name}": masterchain, or 0:<16 hex digits>`);
    }
    const heads = chain.queues().map(({ workchain, shard, seqno, genUtime }) => ({ workchain, shard, seqno, genUtime }));
    return { status: 200, body: { stalled: chain.stalled(), heads } };
  },
  '/_sim/validators': (deps, param) => validatorControl(deps, param),
  '/_sim/jettons'({ jettons }, param) {
    // ?owner=&master=&balance= sets one balance (base units); the answer lists masters and jetton wallets.
    if (param('owner') !== '') {
      if (!/^\d+$/.test(param('balance'))) return error(400, 'balance must be a non-negative integer (base units)');
      if (!jettons.setBalance(param('owner'), param('master'), BigInt(param('balance')))) return error(404, 'that owner holds no jetton wallet of that master');
    }
    const wallets = jettons.wallets().map((w) => ({ address: w.address, owner: w.owner, jetton: w.jetton, balance: w.balance.toString() }));
    return { status: 200, body: { jettons: jettons.jettons, wallets } };
  },
  '/_sim/load'(deps, param) {
    const { addresses, ...read } = deps.load.read();
    if (param('reset') === '1') deps.load.reset();
    // ?summary=1 leaves the per-address counts out (a million of them at scale).
    return { status: 200, body: param('summary') === '1' ? read : { ...read, addresses } };
  },
  '/_sim/accounts': ({ wallets }) => ({
    status: 200,
    body: wallets.accounts().map((a) => ({ raw: a.raw, kind: a.kind, balance: a.balance.toString(), seqno: a.seqno, lt: a.lt.toString() })),
  }),
};

export function createSimControl(deps: SimControlDeps): (url: URL, res: ServerResponse) => void {
  return (url, res) => {
    const control = CONTROLS[url.pathname];
    const reply = control === undefined ? error(404, 'unknown control endpoint') : control(deps, (name) => url.searchParams.get(name) ?? '');
    const { status, body } = reply ?? { status: 200, body: state(deps) };
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    res.end(text);
  };
}

/**
 * /_sim/validators: ?drop=<key> keeps a validator out of the elections that close from now
 * on (?restore=<key> lets it back), ?complain=<key> files a complaint against it,
 * ?idle=<key> stops it creating blocks (?busy=<key> again); the answer is the pool, the
 * sets, the open election and the past elections.
 */
function validatorControl(deps: SimControlDeps, param: Param): Reply {
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
    if (key !== '' && !act(key)) return error(404, `${name}: no such validator in the pool (or, for complain, in the newest past election)`);
  }
  const stake = (s: { validator: { publicKey: string }; stake: bigint }) => ({ publicKey: s.validator.publicKey, stake: s.stake.toString() });
  const set = (x: { since: number; until: number; main: number; members: readonly { validator: { publicKey: string }; stake: bigint }[] } | null) =>
    x === null ? null : { since: x.since, until: x.until, main: x.main, members: x.members.map(stake) };
  const { previous, current, next } = validators.sets(now);
  const election = validators.election(now);
  return {
    status: 200,
    body: {
      now,
      timing: validators.timing,
      pool: validators.pool,
      sets: { previous: set(previous), current: set(current), next: set(next) },
      election: election === null ? null : { id: election.id, closesAt: election.closesAt, participants: election.participants.map(stake) },
      pastElections: validators.pastElections(now).map((p) => ({ id: p.id, unfreezeAt: p.unfreezeAt, frozen: p.frozen.map(stake), complaints: p.complaints })),
    },
  };
}
