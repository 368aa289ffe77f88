/**
 * What read-through answers for the unwatched addresses of one request: their records (R,
 * the snapshot's wallet record), or why not, with how long the client should wait before
 * asking again.
 */
export type ReadThroughAnswer<R> =
  | { readonly ok: true; readonly records: ReadonlyMap<string, R> }
  | { readonly ok: false; readonly status: 503 | 504; readonly error: string; readonly retryAfterSeconds: number };
