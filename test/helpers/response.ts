import { isStreamed, type ServedResponse } from '../../src/serve/response.js';

/** The text of a body given whole; a streamed one is read with readBody. */
export function bodyText(response: ServedResponse): string {
  const { body } = response;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  if (isStreamed(body)) throw new Error('a streamed body: read it with readBody');
  return Buffer.concat(body).toString('utf8');
}

/** The bytes of any body, a streamed one read to its end. */
export async function readBody(response: ServedResponse): Promise<Buffer> {
  const { body } = response;
  if (!isStreamed(body)) return Buffer.from(bodyText(response));
  const parts: Buffer[] = [];
  for await (const part of body.stream()) parts.push(part);
  return Buffer.concat(parts);
}
