import { afterEach } from 'vitest';
import { DEFAULT_SIMULATOR_OPTIONS, createSimulator, type Simulator, type SimulatorOptions } from '../../src/sim/simulator.js';

export interface RunningSim {
  readonly sim: Simulator;
  readonly url: string;
  stop(): Promise<void>;
}

/** An in-process simulator on 127.0.0.1, port 0, stepped by hand (blockMs 0) unless told. */
export async function startSim(options: Partial<SimulatorOptions> = {}): Promise<RunningSim> {
  const sim = createSimulator({ ...DEFAULT_SIMULATOR_OPTIONS, blockMs: 0, hangMs: 5_000, now: () => Date.now(), ...options });
  const address = await sim.start('127.0.0.1', 0);
  return { sim, url: `http://127.0.0.1:${address.port}`, stop: () => sim.stop() };
}

/**
 * In-process simulators and a daemon that a describe block's tests start, all stopped
 * after each test. `track` registers a daemon; `sim` starts a simulator.
 */
export function stoppedAfterEach(): {
  sim(options?: Partial<SimulatorOptions>): Promise<RunningSim>;
  track<T extends { stop(): Promise<void> }>(daemon: T): T;
} {
  const sims: RunningSim[] = [];
  const daemons: { stop(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(daemons.splice(0).map((d) => d.stop()));
    await Promise.all(sims.splice(0).map((s) => s.stop()));
  });
  return {
    async sim(options = {}) {
      const started = await startSim(options);
      sims.push(started);
      return started;
    },
    track(daemon) {
      daemons.push(daemon);
      return daemon;
    },
  };
}
