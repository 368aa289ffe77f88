/** Outcome of the latest poll of one query, for tonwatch_up and /readyz. */
export interface PollOutcome {
  /** null before the first poll finished. */
  readonly lastOk: boolean | null;
  /** ms since epoch; null before the first success. */
  readonly lastSuccessAt: number | null;
}

export interface PollStatus {
  get(query: string): PollOutcome;
  succeeded(query: string, at: number): void;
  failed(query: string): void;
}

export function createPollStatus(): PollStatus {
  const outcomes = new Map<string, PollOutcome>();
  const initial: PollOutcome = { lastOk: null, lastSuccessAt: null };
  return {
    get: (query) => outcomes.get(query) ?? initial,
    succeeded: (query, at) => outcomes.set(query, { lastOk: true, lastSuccessAt: at }),
    failed: (query) => outcomes.set(query, { ...(outcomes.get(query) ?? initial), lastOk: false }),
  };
}
