import * as z from 'zod';
import { jsonResponse, MAX_JSON_RPC_BODY_BYTES, type ServedResponse } from './response.js';
import type { Route, ServedRequest } from './route.js';

/**
 * `POST /api/v2/jsonRPC` as toncenter's Python server answers it (ton-http-api,
 * `pyTON/api/api_v2/endpoints/common.py`): `{method, params?, id?, jsonrpc?}` in, the v2
 * method's own answer out with `"id"` (always a string, left out when none was sent) and
 * `"jsonrpc":"2.0"` added to its envelope. tonweb's `HttpProvider` and `@ton/ton`'s
 * `TonClient` post here. Each method answers exactly what its GET path answers from the
 * same snapshot: status, caching headers, body.
 */

/** A v2 method as JSON-RPC reaches it: the answer its GET path gives, in the v2 envelope. */
export type JsonRpcMethod = (request: ServedRequest) => ServedResponse;

const callSchema = z.object({
  method: z.string(),
  // pydantic's `params: dict = {}`: absent or null is no parameters; an array is not a dict.
  params: z.record(z.string(), z.unknown()).nullish(),
  // pydantic's `id: Optional[str]` coerces a number to its string.
  id: z.union([z.string(), z.number().transform(String)]).nullish(),
  jsonrpc: z.string().nullish(),
});

function validationError(detail: string): ServedResponse {
  return jsonResponse(422, { ok: false, error: `Validation error: ${detail}`, code: 422 });
}

/** Reads a call from a body: the call, or the 422 that refuses it. */
export function parseCall(body: Buffer | undefined): z.output<typeof callSchema> | ServedResponse {
  let parsed: unknown;
  try {
    parsed = JSON.parse((body ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    // A fixed message: JSON.parse's own quotes part of the body back.
    return validationError('the body is not valid JSON');
  }
  if (Array.isArray(parsed)) return validationError('a batch (JSON array) is not supported: send one call per request');
  const call = callSchema.safeParse(parsed);
  if (!call.success) {
    const issues = call.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'body'}: ${issue.message}`);
    return validationError(issues.join('; '));
  }
  return call.data;
}

/**
 * Adds `id` and `jsonrpc` to a v2 envelope body (`{"ok":…}`) without parsing it again: the
 * body is the method's pre-encoded answer, and `}` closes it.
 */
function withCallFields(response: ServedResponse, id: string | null): ServedResponse {
  const body = typeof response.body === 'string' ? Buffer.from(response.body) : response.body;
  if (!Buffer.isBuffer(body) || body[body.length - 1] !== 0x7d) throw new Error('a JSON-RPC method must answer one JSON object');
  const fields = `${id === null ? '' : `,"id":${JSON.stringify(id)}`},"jsonrpc":"2.0"}`;
  const headers: Record<string, string> = { ...response.headers };
  delete headers['content-length'];
  return { status: response.status, headers, body: Buffer.concat([body.subarray(0, body.length - 1), Buffer.from(fields)]) };
}

/** The JSON-RPC route over `methods` (or what a function gives per call: the features' v2 methods). */
export function createJsonRpcRoute(given: Readonly<Record<string, JsonRpcMethod>> | (() => Readonly<Record<string, JsonRpcMethod>>)): Route {
  const methods = typeof given === 'function' ? given : () => given;
  return {
    endpoint: 'json_rpc',
    maxBodyBytes: MAX_JSON_RPC_BODY_BYTES,
    handle(request) {
      if (request.method !== 'POST') {
        return jsonResponse(405, { ok: false, error: 'Method Not Allowed', code: 405 }, { allow: 'POST' });
      }
      const call = parseCall(request.body);
      if ('status' in call) return call;
      const id = call.id ?? null;
      const method = Object.hasOwn(methods(), call.method) ? methods()[call.method] : undefined;
      if (method === undefined) return withCallFields(jsonResponse(422, { ok: false, error: 'Unknown method' }), id);
      // The method reads no parameters of its own (the GET path ignores its query too).
      return withCallFields(method({ ...request, method: 'GET', query: '' }), id);
    },
  };
}
