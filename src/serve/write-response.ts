import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { bodyLength, isStreamed, NOSNIFF, type ServedResponse } from './response.js';

/**
 * Writes a handler's answer: its headers (less those `skip` says the response has already:
 * the web config's own win), and its body as a string or buffer, as corked parts, or as a
 * stream made as the socket takes it. Every answer says `X-Content-Type-Options: nosniff`.
 * `failed` hears a stream that could not be made (the response is cut short then).
 */
export function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: ServedResponse,
  skip: ((name: string) => boolean) | null,
  failed: (err: Error) => void,
): void {
  const { body } = response;
  // Handlers that answer from a cache give both themselves, computed once: their headers go as they are.
  const complete =
    response.headers['content-length'] !== undefined && response.headers[NOSNIFF] !== undefined
      ? response.headers
      : { ...response.headers, 'content-length': response.headers['content-length'] ?? String(bodyLength(body)), [NOSNIFF]: 'nosniff' };
  const headers = skip === null ? complete : Object.fromEntries(Object.entries(complete).filter(([name]) => !skip(name)));
  // One writeHead with every header: a header set on `res` before it (setHeader) sends node:http down its slower path.
  res.writeHead(response.status, headers);
  if (req.method === 'HEAD') res.end();
  else if (typeof body === 'string' || Buffer.isBuffer(body)) res.end(body);
  else if (isStreamed(body)) {
    // One part at a time: the next is made once the socket took the last.
    pipeline(Readable.from(body.stream(), { highWaterMark: 1 }), res, (err) => {
      // A client that went away is not an error.
      if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') failed(err);
    });
  } else {
    // Corked: the parts (dozens of gzip members for /metrics) go to the socket in one
    // writev, not a system call each.
    res.cork();
    for (const part of body) res.write(part);
    res.end();
    res.uncork();
  }
}
