import type { AddressInfo } from 'node:net';
import { closeServer, listen } from '../serve/lifecycle.js';
import { createSimChain, type SimChain } from './chain.js';
import { createSimLiteserver, type SimLiteserver } from './liteserver.js';
import { createRandom } from './random.js';
import { createSimServer, type SimServer } from './server.js';
import type { SimulatorOptions } from './options.js';
import { createSimJettons, type SimJettons } from './jettons.js';
import { createSimWallets, type SimWallets } from './wallets.js';
import { createSimValidators, type SimValidators } from './validators.js';

export { DEFAULT_SIMULATOR_OPTIONS, type SimulatorOptions } from './options.js';

export interface Simulator {
  readonly chain: SimChain;
  readonly validators: SimValidators;
  readonly wallets: SimWallets;
  readonly jettons: SimJettons;
  readonly http: SimServer;
  /** Null unless liteserverPort was given. */
  readonly liteserver: SimLiteserver | null;
  /** Starts the HTTP face (and the liteserver on its own port); resolves with the HTTP address. */
  start(host: string, port: number): Promise<AddressInfo>;
  /** Where the liteserver listens, once started. */
  liteserverAddress(): AddressInfo | null;
  stop(): Promise<void>;
}

/**
 * Each part draws from its own random stream, derived from the seed, so asking for wallets
 * does not change how the chain evolves.
 */
const STREAM = { chain: 0, wallets: 0x5eed, failures: 0xfa11, jettons: 0x7e77, validators: 0x7a11 } as const;

/** The simulated accounts of a simulator run with these options: the same accounts it serves. */
export function createSimWalletsFor(options: Pick<SimulatorOptions, 'seed' | 'accounts' | 'testnet' | 'maxUrlBytes'>): SimWallets {
  return createSimWallets({
    random: createRandom(options.seed ^ STREAM.wallets),
    seed: options.seed,
    count: options.accounts,
    testnet: options.testnet,
    maxUrlBytes: options.maxUrlBytes,
  });
}

/** The simulated TON network and its toncenter-compatible HTTP face, deterministic under a seed. */
export function createSimulator(options: SimulatorOptions): Simulator {
  const chain = createSimChain({ random: createRandom(options.seed ^ STREAM.chain), seed: options.seed, scenario: options.scenario, now: options.now });
  const validators = createSimValidators({
    seed: options.seed,
    random: createRandom(options.seed ^ STREAM.validators),
    roundSeconds: options.validatorRoundSeconds,
  });
  const wallets = createSimWalletsFor(options);
  const jettons = createSimJettons({
    random: createRandom(options.seed ^ STREAM.jettons),
    seed: options.seed,
    accounts: wallets.accounts(),
    testnet: options.testnet,
    maxUrlBytes: options.maxUrlBytes,
  });
  const step = (): void => {
    chain.step();
    wallets.step();
    jettons.step();
    validators.step(Math.floor(options.now() / 1000), chain.queues().length - 1);
  };
  const liteserver =
    options.liteserverPort === null
      ? null
      : createSimLiteserver({
          chain,
          wallets,
          jettons,
          validators,
          seed: options.seed,
          now: options.now,
          withoutQueueSizes: options.liteserverWithoutQueueSizes,
        });
  const http = createSimServer({
    liteserver,
    chain,
    wallets,
    jettons,
    validators,
    step,
    random: createRandom(options.seed ^ STREAM.failures),
    style: options.style,
    rps: options.rps,
    now: options.now,
    hangMs: options.hangMs,
    lagBlocks: options.lagBlocks,
    indexerLagBlocks: options.indexerLagBlocks,
  });
  let timer: NodeJS.Timeout | undefined;
  let liteserverAddress: AddressInfo | null = null;
  return {
    chain,
    validators,
    wallets,
    jettons,
    http,
    liteserver,
    liteserverAddress: () => liteserverAddress,
    async start(host, port) {
      const address = await listen(http.server, host, port);
      if (liteserver !== null) liteserverAddress = await listen(liteserver.server, host, options.liteserverPort ?? 0);
      if (options.blockMs > 0) {
        timer = setInterval(step, options.blockMs);
        timer.unref();
      }
      return address;
    },
    async stop() {
      clearInterval(timer);
      if (liteserver !== null && liteserver.server.listening) await new Promise<void>((resolve) => liteserver.server.close(() => resolve()));
      await closeServer(http.server, 0);
    },
  };
}
