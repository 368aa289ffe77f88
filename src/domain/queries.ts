/** The `query` label: which polled upstream operation something belongs to. */
export type QueryName = 'queue_sizes' | 'wallets' | 'jetton_wallets' | 'chain_heads' | 'validators';
