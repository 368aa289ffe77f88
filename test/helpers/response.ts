import type { ServedResponse } from '../../src/serve/response.js';

export function bodyText(response: ServedResponse): string {
  const { body } = response;
  if (typeof body === 'string') return body;
  return Buffer.isBuffer(body) ? body.toString('utf8') : Buffer.concat(body).toString('utf8');
}
