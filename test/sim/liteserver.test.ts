import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { clientHandshake, createFrameReader, frame, generateEd25519 } from '../../src/ton/adnl.js';
import { ID } from '../../src/ton/lite-api.js';
import { TlReader, TlWriter } from '../../src/ton/tl.js';
import { simLiteserverKeys } from '../../src/sim/liteserver.js';
import { stoppedAfterEach } from '../helpers/sim.js';

/** The simulator's liteserver at the wire: the handshake answer, tcp.ping, and a client with the wrong key. */

const running = stoppedAfterEach();
const sockets: Socket[] = [];
afterEach(() => {
  for (const s of sockets.splice(0)) s.destroy();
});

function open(port: number, publicKey: Buffer): Promise<{ socket: Socket; payloads: Buffer[]; closed: Promise<void> } & ReturnType<typeof clientHandshake>> {
  const handshake = clientHandshake(publicKey);
  const reader = createFrameReader();
  const payloads: Buffer[] = [];
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('error', () => undefined);
  socket.on('data', (chunk: Buffer) => payloads.push(...reader.push(handshake.ciphers.decrypt.update(chunk))));
  socket.on('connect', () => socket.write(handshake.packet));
  return Promise.resolve({ socket, payloads, closed, ...handshake });
}

const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
};

describe('simulated liteserver', () => {
  it('answers the handshake with an empty frame and tcp.ping with tcp.pong of the same id', async () => {
    const sim = await running.sim({ seed: 3, liteserverPort: 0 });
    const port = sim.sim.liteserverAddress()?.port ?? 0;
    expect(sim.sim.liteserver?.publicKey).toBe(simLiteserverKeys(3).publicKey.toString('base64'));
    const c = await open(port, simLiteserverKeys(3).publicKey);
    await until(() => c.payloads.length === 1);
    expect(c.payloads[0]).toHaveLength(0);
    c.socket.write(c.ciphers.encrypt.update(frame(new TlWriter().id(ID.tcpPing).int64(-42n).build())));
    await until(() => c.payloads.length === 2);
    const pong = new TlReader(c.payloads[1] as Buffer);
    expect(pong.uint32()).toBe(ID.tcpPong);
    expect(pong.int64()).toBe(-42n);
  });

  it('drops a client that names another key, without a word', async () => {
    const sim = await running.sim({ seed: 3, liteserverPort: 0 });
    const c = await open(sim.sim.liteserverAddress()?.port ?? 0, generateEd25519().publicKey);
    await c.closed;
    expect(c.payloads).toEqual([]);
  });
});
