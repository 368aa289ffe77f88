/**
 * What a peer sent cannot be read: malformed TL (`bad_tl`), a broken ADNL frame
 * (`bad_frame`), or cells that are not the structure they should be (`bad_data`). The one
 * error type of ton/'s parsers; the upstream counts it as `bad_body`.
 */
export class TonParseError extends Error {
  override readonly name: string = 'TonParseError';
  constructor(
    readonly code: 'bad_tl' | 'bad_frame' | 'bad_data',
    message: string,
  ) {
    super(message);
  }
}
