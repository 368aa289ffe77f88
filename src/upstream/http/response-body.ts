import type { Dispatcher } from 'undici';

/**
 * Reads a response body as text, refusing more than maxBytes (a broken or hostile
 * upstream). Each chunk is decoded as it comes (a character split between chunks is
 * carried over): no buffer of the whole body is made, only the text the parser needs. At
 * 100,000 wallets a cycle reads a hundred 600 KB answers, and a copy of each outside the
 * JavaScript heap, freed only when the collector gets to it, was most of the memory the
 * process held on to between cycles.
 */
export async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string> {
  // ignoreBOM: a byte-order mark stays in the text, as Buffer#toString leaves it (and JSON.parse refuses it).
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let text = '';
  let size = 0;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > maxBytes) {
      body.destroy();
      throw new Error(`response body larger than ${maxBytes} bytes`);
    }
    text += decoder.decode(buffer, { stream: true });
  }
  return text + decoder.decode();
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
