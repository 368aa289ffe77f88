import { jsonResponse, type ServedResponse } from './response.js';

/** /readyz: 200 when no part of the daemon has a reason not to be ready; else 503 with the reasons. */
export function serveReadyz(reasons: readonly string[]): ServedResponse {
  return reasons.length === 0 ? jsonResponse(200, { ready: true }) : jsonResponse(503, { ready: false, reasons });
}

export function serveHealthz(): ServedResponse {
  return jsonResponse(200, { status: 'ok' });
}
