import { createCipheriv, createHash, createPrivateKey, createPublicKey, diffieHellman, randomBytes, type Cipher, type Decipher } from 'node:crypto';
import { TonParseError } from './errors.js';
import { tlId } from './tl.js';

/**
 * ADNL over TCP, both ends, on node:crypto alone (ton-docs "ADNL TCP - Liteserver", the
 * node's `adnl/adnl-ext-connection.cpp`):
 *
 * - the client's first 256 bytes: the server key's id, the client's ephemeral ed25519 key,
 *   sha256(params) and the 160 bytes of params under AES-256-CTR keyed from the x25519
 *   secret of the two keys;
 * - then two AES-256-CTR streams keyed by params, and frames of
 *   `size u32le ‖ 32 random bytes ‖ payload ‖ sha256(random ‖ payload)`.
 */

const P = (1n << 255n) - 19n;
/** DER prefixes of a raw 32-byte key: PKCS#8 X25519 and Ed25519 private keys, SPKI X25519 public key. */
const X25519_PKCS8 = Buffer.from('302e020100300506032b656e04220420', 'hex');
const ED25519_PKCS8 = Buffer.from('302e020100300506032b657004220420', 'hex');
const X25519_SPKI = Buffer.from('302a300506032b656e032100', 'hex');

export const HANDSHAKE_BYTES = 256;
/** Nonce + hash: what a frame's size counts beyond its payload (the size field itself not counted). */
export const FRAME_OVERHEAD = 32 + 32;
/** The TL id of a public key, for the server's key id: ADNL's own, not the lite API's. */
const PUB_ED25519 = tlId('pub.ed25519 key:int256 = PublicKey');
/** The largest frame we accept; a bigger size field is garbage (the node's own limit is 16 MiB). */
export const MAX_FRAME_BYTES = 1 << 24;

const sha256 = (...parts: Uint8Array[]): Buffer => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};

function modPow(base: bigint, exponent: bigint): bigint {
  let result = 1n;
  let b = base % P;
  let e = exponent;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
    e >>= 1n;
  }
  return result;
}

/** An ed25519 public key (Edwards y) as the X25519 u-coordinate of the same point: u = (1 + y) / (1 − y). */
export function edwardsToMontgomery(publicKey: Uint8Array): Buffer {
  if (publicKey.length !== 32) throw new RangeError('an ed25519 public key has 32 bytes');
  const le = Buffer.from(publicKey);
  le[31] = (le[31] ?? 0) & 0x7f;
  const y = BigInt(`0x${Buffer.from(le).reverse().toString('hex')}`);
  const u = ((1n + y) * modPow((1n - y + P) % P, P - 2n)) % P;
  return Buffer.from(u.toString(16).padStart(64, '0'), 'hex').reverse();
}

/** An ed25519 key pair from its 32-byte seed: the public key, and the X25519 scalar of the same key (sha512(seed)[0..32]). */
export interface Ed25519Keys {
  readonly seed: Buffer;
  readonly publicKey: Buffer;
  readonly x25519Scalar: Buffer;
}

export function ed25519FromSeed(seed: Uint8Array): Ed25519Keys {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8, seed]), format: 'der', type: 'pkcs8' });
  const jwk = createPublicKey(key).export({ format: 'jwk' });
  const publicKey = Buffer.from(jwk.x ?? '', 'base64url');
  const x25519Scalar = createHash('sha512').update(seed).digest().subarray(0, 32);
  return { seed: Buffer.from(seed), publicKey, x25519Scalar };
}

export function generateEd25519(): Ed25519Keys {
  return ed25519FromSeed(randomBytes(32));
}

/** The x25519 secret between our key and the peer's ed25519 public key. */
export function sharedSecret(ours: Ed25519Keys, peerPublicKey: Uint8Array): Buffer {
  const privateKey = createPrivateKey({ key: Buffer.concat([X25519_PKCS8, ours.x25519Scalar]), format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey({ key: Buffer.concat([X25519_SPKI, edwardsToMontgomery(peerPublicKey)]), format: 'der', type: 'spki' });
  return diffieHellman({ privateKey, publicKey });
}

/** A server's ADNL id: sha256 of its boxed `pub.ed25519` key. */
export function keyId(publicKey: Uint8Array): Buffer {
  const boxed = Buffer.alloc(36);
  boxed.writeUInt32LE(PUB_ED25519);
  Buffer.from(publicKey).copy(boxed, 4);
  return sha256(boxed);
}

/** The two AES-CTR streams of a connection, as one side sees them. */
export interface StreamCiphers {
  readonly encrypt: Cipher;
  readonly decrypt: Decipher;
}

function handshakeCipher(secret: Buffer, paramsHash: Buffer): Cipher {
  const key = Buffer.concat([secret.subarray(0, 16), paramsHash.subarray(16, 32)]);
  const iv = Buffer.concat([paramsHash.subarray(0, 4), secret.subarray(20, 32)]);
  return createCipheriv('aes-256-ctr', key, iv);
}

/** params: rx_key 0..32, tx_key 32..64, rx_nonce 64..80, tx_nonce 80..96 (the client's tx is the server's rx). */
function streams(params: Buffer, side: 'client' | 'server'): StreamCiphers {
  const rx = createCipheriv('aes-256-ctr', params.subarray(0, 32), params.subarray(64, 80));
  const tx = createCipheriv('aes-256-ctr', params.subarray(32, 64), params.subarray(80, 96));
  return side === 'client' ? { encrypt: tx, decrypt: rx } : { encrypt: rx, decrypt: tx };
}

/** The client's opening packet to the server with this public key, and the client's streams. */
export function clientHandshake(serverPublicKey: Uint8Array, ephemeral: Ed25519Keys = generateEd25519()): { packet: Buffer; ciphers: StreamCiphers } {
  const params = randomBytes(160);
  const paramsHash = sha256(params);
  const cipher = handshakeCipher(sharedSecret(ephemeral, serverPublicKey), paramsHash);
  const packet = Buffer.concat([keyId(serverPublicKey), ephemeral.publicKey, paramsHash, cipher.update(params), cipher.final()]);
  return { packet, ciphers: streams(params, 'client') };
}

/** The server's reading of an opening packet; null when it is not for this key or does not check out. */
export function acceptHandshake(packet: Buffer, server: Ed25519Keys): StreamCiphers | null {
  if (packet.length !== HANDSHAKE_BYTES || !packet.subarray(0, 32).equals(keyId(server.publicKey))) return null;
  const clientKey = packet.subarray(32, 64);
  const paramsHash = packet.subarray(64, 96);
  let params: Buffer;
  try {
    const cipher = handshakeCipher(sharedSecret(server, clientKey), paramsHash);
    params = Buffer.concat([cipher.update(packet.subarray(96)), cipher.final()]);
  } catch {
    return null;
  }
  return sha256(params).equals(paramsHash) ? streams(params, 'server') : null;
}

/** One frame around a payload, not yet encrypted. */
export function frame(payload: Uint8Array): Buffer {
  const nonce = randomBytes(32);
  const size = Buffer.alloc(4);
  size.writeUInt32LE(32 + payload.length + 32);
  return Buffer.concat([size, nonce, payload, sha256(nonce, payload)]);
}

/** Bad framing: the stream cannot be trusted past it, so the connection is closed. */
export class FrameError extends TonParseError {
  override readonly name = 'FrameError';
  constructor(message: string) {
    super('bad_frame', message);
  }
}

/**
 * Reassembles decrypted bytes into frame payloads. push() returns the payloads complete so
 * far; it throws FrameError on a size out of range or a checksum that does not match.
 */
export function createFrameReader(): { push(decrypted: Buffer): Buffer[] } {
  let pending: Buffer = Buffer.alloc(0);
  return {
    push(decrypted) {
      pending = pending.length === 0 ? decrypted : Buffer.concat([pending, decrypted]);
      const payloads: Buffer[] = [];
      while (pending.length >= 4) {
        const size = pending.readUInt32LE(0);
        if (size < FRAME_OVERHEAD || size > MAX_FRAME_BYTES) throw new FrameError(`frame size ${size} out of range`);
        if (pending.length < 4 + size) break;
        const body = pending.subarray(4, 4 + size);
        const nonce = body.subarray(0, 32);
        const payload = body.subarray(32, size - 32);
        if (!sha256(nonce, payload).equals(body.subarray(size - 32))) throw new FrameError('frame checksum does not match');
        payloads.push(Buffer.from(payload));
        pending = pending.subarray(4 + size);
      }
      return payloads;
    },
  };
}
