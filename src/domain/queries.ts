/** The `query` label: which polled upstream operation something belongs to. */
export type QueryName = 'queue_sizes' | 'wallets' | 'jetton_wallets';

export const QUERIES: readonly QueryName[] = ['queue_sizes', 'wallets', 'jetton_wallets'];

/** The queries every daemon polls, whose series exist from the start (jetton_wallets only with jettons configured). */
export const ALWAYS_POLLED: readonly QueryName[] = ['queue_sizes', 'wallets'];
