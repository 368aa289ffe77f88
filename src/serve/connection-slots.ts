import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionDrop } from '../domain/connections.js';

/**
 * Who holds the server's connections, and who makes room when they run out:
 * - at `maxConnections`, a new connection closes the connection that has been idle longest
 *   (no request in flight: between keep-alive requests, or still sending its first
 *   headers) and takes its place; it is refused only when every slot is mid-request;
 * - one client address holds at most `maxConnectionsPerClient`, past which its own
 *   longest-idle connection makes room, or the new one is refused;
 * - a TLS handshake not finished within `tlsHandshakeTimeoutMs` is destroyed, with nothing
 *   written to it.
 * So idle connections, however many, never lock a scrape out.
 */

/** Bounds read for each new connection, so a reload applies them. */
export interface SlotLimits {
  readonly maxConnections: number;
  readonly maxConnectionsPerClient: number;
  /** 0 on a plain HTTP server. */
  readonly tlsHandshakeTimeoutMs: number;
}

export interface ConnectionSlots {
  /** Whether a TLS socket has finished its handshake (a socket that has not must be destroyed, never written to). */
  established(socket: Socket): boolean;
}

interface Slot {
  readonly key: string;
  readonly client: string;
  /** Its slot given up: evicted (its socket closes a moment later) or closed. */
  released: boolean;
  /** What to destroy: the raw socket, then the TLS socket once its handshake is done. */
  outer: Socket;
  inFlight: number;
  handshake: NodeJS.Timeout | null;
}

/** A connection's key, the same for its raw socket and its TLS socket. */
const keyOf = (socket: Socket): string => `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;

/**
 * The slots themselves: which connections hold one, which of them are idle (longest idle
 * first: re-added at the end when they go idle again), and how many each client holds.
 */
function createSlotTable(onConnection: (event: 'opened' | 'closed' | ConnectionDrop) => void) {
  const slots = new Map<string, Slot>();
  const idle = new Set<Slot>();
  const perClient = new Map<string, number>();

  /** The longest-idle slot, of `client` when given. */
  const longestIdle = (client?: string): Slot | undefined => {
    for (const slot of idle) if (client === undefined || slot.client === client) return slot;
    return undefined;
  };

  /** Gives the slot up, at once: an evicted socket closes only at a later turn of the event loop. */
  const release = (slot: Slot): void => {
    if (slot.released) return;
    slot.released = true;
    if (slot.handshake !== null) clearTimeout(slot.handshake);
    slots.delete(slot.key);
    idle.delete(slot);
    const left = (perClient.get(slot.client) ?? 1) - 1;
    if (left === 0) perClient.delete(slot.client);
    else perClient.set(slot.client, left);
  };

  const evict = (slot: Slot): void => {
    release(slot);
    onConnection('idle_evicted');
    slot.outer.destroy();
  };

  return {
    release,
    get: (key: string): Slot | undefined => slots.get(key),
    /** Makes room for a connection of `client`; the reason it is refused when there is none. */
    makeRoom(client: string, bounds: SlotLimits): ConnectionDrop | null {
      if ((perClient.get(client) ?? 0) >= bounds.maxConnectionsPerClient) {
        const own = longestIdle(client);
        if (own === undefined) return 'max_connections_per_client';
        evict(own);
      }
      if (slots.size >= bounds.maxConnections) {
        const any = longestIdle();
        if (any === undefined) return 'max_connections';
        evict(any);
      }
      return null;
    },
    /** A slot for a new connection, idle until its first request. */
    take(socket: Socket, client: string): Slot {
      const slot: Slot = { key: keyOf(socket), client, released: false, outer: socket, inFlight: 0, handshake: null };
      slots.set(slot.key, slot);
      idle.add(slot);
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      return slot;
    },
    requestStarted(slot: Slot): void {
      slot.inFlight += 1;
      idle.delete(slot);
    },
    requestEnded(slot: Slot): void {
      slot.inFlight -= 1;
      if (slot.inFlight === 0 && !slot.released) idle.add(slot);
    },
  };
}

export function createConnectionSlots(
  server: Server,
  limits: () => SlotLimits,
  onConnection: (event: 'opened' | 'closed' | ConnectionDrop) => void,
): ConnectionSlots {
  const table = createSlotTable(onConnection);
  const established = new WeakSet<Socket>();
  /** Each socket's slot (the raw socket's, and its TLS socket's once established): a request finds its own without a key made per request. */
  const slotOf = new WeakMap<Socket, Slot>();

  server.on('connection', (socket: Socket) => {
    const client = socket.remoteAddress;
    if (client === undefined) {
      socket.destroy();
      return;
    }
    const bounds = limits();
    const refused = table.makeRoom(client, bounds);
    if (refused !== null) {
      onConnection(refused);
      socket.destroy();
      return;
    }
    const slot = table.take(socket, client);
    slotOf.set(socket, slot);
    onConnection('opened');
    if (bounds.tlsHandshakeTimeoutMs > 0) {
      slot.handshake = setTimeout(() => {
        onConnection('tls_handshake_timeout');
        socket.destroy();
      }, bounds.tlsHandshakeTimeoutMs);
      slot.handshake.unref();
    }
    socket.once('close', () => {
      table.release(slot);
      onConnection('closed');
    });
  });

  server.on('secureConnection', (socket: Socket) => {
    const slot = table.get(keyOf(socket));
    if (slot === undefined) return;
    established.add(socket);
    slotOf.set(socket, slot);
    if (slot.handshake !== null) clearTimeout(slot.handshake);
    slot.handshake = null;
    slot.outer = socket;
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const slot = slotOf.get(req.socket);
    if (slot === undefined || slot.released) return;
    table.requestStarted(slot);
    res.once('close', () => table.requestEnded(slot));
  });

  return { established: (socket) => established.has(socket) };
}
