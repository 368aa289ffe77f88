import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { SimChain } from './chain.js';
import { FAILURE_KINDS, writeFailure, writeRateLimited, type FailureKind } from './failures.js';
import type { Random } from './random.js';
import { scenarioParams } from './scenarios.js';
import type { SimJettons } from './jettons.js';
import type { SimWallets } from './wallets.js';
import type { SimLiteserver } from './liteserver.js';
import { createSimControl } from './control.js';
import { createLoadMeter } from './load-meter.js';
import { parseAddress } from '../ton/address.js';
import { createSimBodies, type SimStyle } from './v2-bodies.js';
import { CHAIN_PATHS, createSimChainBodies } from './chain-bodies.js';
import type { SimValidators } from './validators.js';

/**
 * The simulator's HTTP face: a toncenter-compatible upstream in either server generation's
 * style, plus a small control API under /_sim/ for tests and drills.
 *
 * - style `python`: answers the plural v2 path only, `@extra` inside `result`;
 *   `cpp`: the singular path only, `@extra` at the top level; `both`: either path.
 * - `rps`: requests per second before toncenter's 429 bodies (null: unlimited).
 */
export interface SimServerOptions {
  readonly chain: SimChain;
  readonly wallets: SimWallets;
  readonly jettons: SimJettons;
  /** One block everywhere: what the simulator's timer does, and /_sim/step on demand. */
  readonly step: () => void;
  readonly random: Random;
  readonly style: SimStyle;
  readonly rps: number | null;
  readonly now: () => number;
  /** How long a simulated timeout holds the connection before dropping it. */
  readonly hangMs: number;
  /** Masterchain blocks this upstream's tip is held behind the simulated chain (its v2 answers). */
  readonly lagBlocks: number;
  /** Blocks its v3 indexer is further behind its own v2 tip (/api/v3/masterchainInfo). */
  readonly indexerLagBlocks: number;
  /** The liteserver face, controlled through /_sim/liteserver; null when there is none. */
  readonly liteserver?: SimLiteserver | null;
  readonly validators: SimValidators;
}

export interface SimServer {
  readonly server: Server;
  /** The next `count` API requests fail as `kind`. */
  inject(kind: FailureKind, count: number): void;
  /** API responses by status code (and `reset`/`timeout` for no response). */
  stats(): Record<string, number>;
  /** API requests by path, counted as they arrive (before any 429 or injected failure). */
  requestsByPath(): Record<string, number>;
  /** Holds the tip `blocks` behind, and the indexer `indexer` more. */
  setLag(blocks: number, indexer: number): void;
}

const PLURAL = '/api/v2/getOutMsgQueueSizes';
const SINGULAR = '/api/v2/getOutMsgQueueSize';
const MASTERCHAIN_INFO = '/api/v2/getMasterchainInfo';
const INDEXER_MASTERCHAIN_INFO = '/api/v3/masterchainInfo';
const JETTON_WALLETS = '/api/v3/jetton/wallets';
const JETTON_MASTERS = '/api/v3/jetton/masters';

/** An address as its raw form, for the load meter; null when it is none. */
function rawOrNull(text: string): string | null {
  const parsed = parseAddress(text);
  return parsed.ok ? parsed.value.raw : null;
}

const NOT_FOUND = JSON.stringify({ ok: false, error: 'Not Found', code: 404, '@extra': '_' });

/** A request handler that reads a POST's body (runGetMethod's) before answering; any other request at once. */
function withPostedBody(
  answer: (req: IncomingMessage, res: ServerResponse, posted: Buffer | null) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'POST') return answer(req, res, null);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks)));
  };
}

type ApiRoute = (url: URL, posted: Buffer | null) => { readonly status: number; readonly body: string };

/** The API's paths and what answers each. */
function apiRoutes(
  options: SimServerOptions,
  bodies: ReturnType<typeof createSimBodies>,
  chainBodies: ReturnType<typeof createSimChainBodies>,
): Map<string, ApiRoute> {
  const ok =
    (body: () => string): ApiRoute =>
    () => ({ status: 200, body: body() });
  const notFound: ApiRoute = () => ({ status: 404, body: NOT_FOUND });
  const routes = new Map<string, ApiRoute>([
    // Each server spells the v2 method its own way, and answers the other 404.
    [PLURAL, options.style === 'cpp' ? notFound : ok(bodies.queueSizes)],
    [SINGULAR, options.style === 'python' ? notFound : ok(bodies.queueSizes)],
    [MASTERCHAIN_INFO, ok(bodies.masterchainInfo)],
    [INDEXER_MASTERCHAIN_INFO, ok(bodies.indexerMasterchainInfo)],
    ['/api/v3/walletStates', (url) => options.wallets.answer(url)],
    [JETTON_WALLETS, (url) => options.jettons.answer(url)],
    [JETTON_MASTERS, (url) => options.jettons.masters(url)],
  ]);
  for (const path of CHAIN_PATHS) routes.set(path, (url, posted) => chainBodies.answer(url, posted));
  return routes;
}

/**
 * A token bucket of `rps` a second (5 % slack over the nominal rate absorbs loopback jitter,
 * as real gateways' limiters do): true when a request is over it.
 */
function createLimiter(rps: number, now: () => number): () => boolean {
  const limiter = { tokens: rps, at: now(), rate: rps * 1.05, capacity: Math.max(1, rps) };
  return () => {
    const t = now();
    limiter.tokens = Math.min(limiter.capacity, limiter.tokens + ((t - limiter.at) / 1000) * limiter.rate);
    limiter.at = t;
    if (limiter.tokens < 1) return true;
    limiter.tokens -= 1;
    return false;
  };
}

export function createSimServer(options: SimServerOptions): SimServer {
  const { chain, wallets, random, now } = options;
  const injected: FailureKind[] = [];
  const inject = (kind: FailureKind, n: number): void => {
    for (let i = 0; i < n; i += 1) injected.push(kind);
  };
  const counts: Record<string, number> = {};
  const count = (key: string | number): void => {
    counts[String(key)] = (counts[String(key)] ?? 0) + 1;
  };
  const overBudget = options.rps === null ? () => false : createLimiter(options.rps, now);
  let requestCount = 0;
  const load = createLoadMeter(rawOrNull);
  const byPath: Record<string, number> = {};
  let lag = { blocks: options.lagBlocks, indexer: options.indexerLagBlocks };
  const send = (res: ServerResponse, status: number, body: string): void => {
    count(status);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  const bodies = createSimBodies({ chain, random, now, style: options.style, lag: () => lag });

  const control = createSimControl({
    step: options.step,
    chain,
    wallets,
    jettons: options.jettons,
    liteserver: options.liteserver ?? null,
    inject,
    lag: () => lag,
    setLag: (next) => (lag = next),
    stats: () => ({ stats: counts, requests: byPath }),
    load,
    validators: options.validators,
    now,
  });

  const routes = apiRoutes(options, bodies, createSimChainBodies({ chain, validators: options.validators, now }));

  const answer = (req: IncomingMessage, res: ServerResponse, posted: Buffer | null): void => {
    const url = new URL(req.url ?? '/', 'http://sim.invalid');
    if (url.pathname.startsWith('/_sim/')) return control(url, res);
    const route = routes.get(url.pathname);
    if (route === undefined) return send(res, 404, NOT_FOUND);
    // runGetMethod is POST only, as on both toncenter servers; everything else GET.
    if (req.method !== (url.pathname === '/api/v2/runGetMethod' ? 'POST' : 'GET')) {
      return send(res, 405, JSON.stringify({ ok: false, error: 'Method Not Allowed', code: 405 }));
    }
    requestCount += 1;
    load.arrived(now(), url.pathname === '/api/v3/walletStates' ? url.searchParams.getAll('address') : []);
    byPath[url.pathname] = (byPath[url.pathname] ?? 0) + 1;
    if (overBudget()) {
      count(429);
      return writeRateLimited(res, requestCount % 2 === 0 ? 'error' : 'result');
    }
    const answered = route(url, posted);
    const failure = injected.shift() ?? (random.chance(scenarioParams(chain.scenario).failureRate) ? random.pick(FAILURE_KINDS) : undefined);
    if (failure && answered.status === 200) {
      count(failure.startsWith('rate_limited') ? 429 : failure);
      writeFailure(failure, req, res, answered.body, options.hangMs);
      return;
    }
    send(res, answered.status, answered.body);
  };

  // Big header limit: the simulator must see long walletStates URLs to answer them 414 itself.
  const server = createServer({ maxHeaderSize: 256 * 1024 }, withPostedBody(answer));
  return {
    server,
    inject,
    stats: () => ({ ...counts }),
    requestsByPath: () => ({ ...byPath }),
    setLag: (blocks, indexer) => {
      lag = { blocks, indexer };
    },
  };
}
