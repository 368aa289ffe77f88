import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Every way a real toncenter deployment fails (timeouts, resets, 4xx/5xx, 429, HTML error
 * pages, truncated or schema-violating JSON), as the simulator answers it.
 */
export const FAILURE_KINDS = [
  'timeout', // no answer at all until the client gives up
  'reset', // connection reset before any response
  'http_500', // tonlib error
  'http_503',
  'http_504', // LITE_SERVER_NETWORK timeout
  'http_542', // the C++ server's tonlib error code
  'rate_limited', // 429, message under `error`
  'rate_limited_result', // 429, message under `result`
  'html_502', // a proxy's HTML error page
  'truncated', // 200 with JSON cut off mid-body
  'bad_schema', // 200 with JSON that violates the schema
  'ok_false', // 200 with ok=false
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

export function isFailureKind(kind: string): kind is FailureKind {
  return (FAILURE_KINDS as readonly string[]).includes(kind);
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers });
  res.end(text);
};

/** The 429 answers toncenter documents, in both body forms. */
export function writeRateLimited(res: ServerResponse, form: 'error' | 'result'): void {
  json(res, 429, form === 'error' ? { ok: false, code: 429, error: 'Ratelimit exceeded' } : { ok: false, result: 'Ratelimit exceed', code: 429 });
}

/**
 * Answers (or refuses to answer) a request the way `kind` fails. `validBody` is what a
 * success would have sent, used to build the truncated variant. `hangMs` bounds a timeout.
 */
export function writeFailure(kind: FailureKind, req: IncomingMessage, res: ServerResponse, validBody: string, hangMs: number): void {
  switch (kind) {
    case 'timeout': {
      const timer = setTimeout(() => req.socket.destroy(), hangMs);
      timer.unref();
      req.socket.once('close', () => clearTimeout(timer));
      return;
    }
    case 'reset':
      req.socket.destroy();
      return;
    case 'http_500':
      return json(res, 500, { ok: false, error: 'LITE_SERVER_UNKNOWN: cannot load block', code: 500 });
    case 'http_503':
      return json(res, 503, { ok: false, error: 'Service Unavailable', code: 503 });
    case 'http_504':
      return json(res, 504, { ok: false, error: 'LITE_SERVER_NETWORK timeout', code: 504 });
    case 'http_542':
      return json(res, 542, { ok: false, error: 'tonlib error: block not applied', code: 542 });
    case 'rate_limited':
      return writeRateLimited(res, 'error');
    case 'rate_limited_result':
      return writeRateLimited(res, 'result');
    case 'html_502': {
      const html = '<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
      res.writeHead(502, { 'content-type': 'text/html', 'content-length': String(html.length) });
      res.end(html);
      return;
    }
    case 'truncated': {
      const cut = validBody.slice(0, Math.max(1, Math.floor(validBody.length / 2)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(cut)) });
      res.end(cut);
      return;
    }
    case 'bad_schema':
      return json(res, 200, {
        ok: true,
        result: { '@type': 'blocks.outMsgQueueSizes', shards: 'not-a-list', ext_msg_queue_size_limit: 'lots' },
        wallets: 'not-a-list',
      });
    case 'ok_false':
      return json(res, 200, { ok: false, error: 'tonlib not ready', code: 500 });
  }
}
