import type { IncomingMessage } from 'node:http';

/**
 * The whole body of a request, or null when it is (or says it is) longer than `limit`
 * bytes; then reading stops. Rejects when the client goes away mid-body.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > limit) {
        req.off('data', onData);
        req.pause();
        resolve(null);
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks, length)));
    req.once('error', reject);
    req.once('aborted', () => reject(new Error('client went away mid-body')));
  });
}
