import type { Dispatcher } from 'undici';

/** Reads a response body as text, refusing more than maxBytes (a broken or hostile upstream). */
export async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      body.destroy();
      throw new Error(`response body larger than ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false; cause: unknown } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (cause) {
    return { ok: false, cause };
  }
}

export function isFailureEnvelope(body: unknown): boolean {
  return typeof body === 'object' && body !== null && (body as { ok?: unknown }).ok === false;
}

/** A short, single-line excerpt of a body that is not what we expected (HTML error pages). */
export function describeNonJson(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat === '') return 'empty body';
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}
