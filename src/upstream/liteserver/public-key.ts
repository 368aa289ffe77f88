import * as z from 'zod';

/** An ed25519 public key: 32 bytes in standard or URL-safe base64 (normalised to standard). */
export const liteserverPublicKey = z
  .string()
  .regex(/^[A-Za-z0-9+/_-]{43}=?$/, 'must be a 32-byte ed25519 public key in base64 (44 characters)')
  .transform((key) => Buffer.from(key, 'base64').toString('base64'))
  .refine((key) => Buffer.from(key, 'base64').length === 32, 'must decode to 32 bytes');
