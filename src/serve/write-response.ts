import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, pipeline } from 'node:stream';
import { bodyLength, isStreamed, type ServedResponse } from './response.js';

/**
 * Writes a handler's answer: its headers (less those `skip` says the response has already:
 * the web config's own win), and its body as a string or buffer, as corked parts, or as a
 * stream made as the socket takes it. `failed` hears a stream that could not be made (the
 * response is cut short then).
 */
export function writeResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: ServedResponse,
  skip: ((name: string) => boolean) | null,
  failed: (err: Error) => void,
): void {
  const { body } = response;
  const headers = skip === null ? response.headers : Object.fromEntries(Object.entries(response.headers).filter(([name]) => !skip(name)));
  // Handlers that answer from a cache give content-length themselves, computed once.
  res.writeHead(response.status, headers['content-length'] === undefined ? { ...headers, 'content-length': String(bodyLength(body)) } : headers);
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
