/** A failure of the connection itself (not a liteServer.error answer): every one is a rejected promise. */
export type TransportFailure = 'timeout' | 'network' | 'bad_body' | 'aborted';

export class LiteTransportError extends Error {
  override readonly name = 'LiteTransportError';
  constructor(
    readonly failure: TransportFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
