/** The `query` label: which of the two polled upstream operations something belongs to. */
export type QueryName = 'queue_sizes' | 'wallets';

export const QUERIES: readonly QueryName[] = ['queue_sizes', 'wallets'];
