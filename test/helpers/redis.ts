import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { eventually, findTool, freePort } from './process.js';

/** Debian's redis-server on a free loopback port, no persistence; null (with the reason) when it is not installed outside CI. */
export interface RunningRedis {
  readonly url: string;
  readonly port: number;
  /** A client for the test's own reads; closed by stop(). */
  client(): Redis;
  /** Stops the server (SIGKILL: as a crash or a lost node). */
  kill(): Promise<void>;
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export function redisServerPath(): string | null {
  return findTool('redis-server');
}

export async function startRedis(bin: string): Promise<RunningRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const clients: Redis[] = [];
  const launch = async (): Promise<void> => {
    const started = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    child = started;
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      await eventually(
        async () => {
          if (probe.status !== 'ready') await probe.connect().catch(() => undefined);
          return (await probe.ping()) === 'PONG' ? true : undefined;
        },
        10_000,
        'redis-server answering',
      );
    } finally {
      probe.disconnect();
    }
  };
  const kill = async (): Promise<void> => {
    const running = child;
    child = null;
    if (running === null || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    client() {
      const client = new Redis(port, '127.0.0.1');
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    kill,
    restart: launch,
    async stop() {
      for (const client of clients.splice(0)) client.disconnect();
      await kill();
    },
  };
}
