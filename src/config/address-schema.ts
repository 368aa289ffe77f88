import * as z from 'zod';
import { parseAddress } from '../ton/address.js';

/** An address in any accepted form (ton/address.ts). */
export const addressString = z.string().superRefine((value, ctx) => {
  const parsed = parseAddress(value);
  if (!parsed.ok) ctx.addIssue({ code: 'custom', message: `invalid address "${value}": ${parsed.reason}` });
});
