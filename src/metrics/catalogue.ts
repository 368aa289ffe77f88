/**
 * The chain facts' metric names (`ton_*`), rendered from the snapshot once per poll
 * (queue-series.ts, wallet-series.ts). The daemon's own (`tonwatch_*`) are in registry.ts.
 */

export interface MetricFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'gauge' | 'counter';
}

const gauge = (name: string, help: string): MetricFamily => ({ name, help, type: 'gauge' });

export const CHAIN_METRICS = {
  outMsgQueueSize: gauge('ton_out_msg_queue_size', "Messages in the shard's outbound message queue."),
  extMsgQueueSizeLimit: gauge(
    'ton_ext_msg_queue_size_limit',
    'ext_msg_queue_size_limit as the upstream reports it; above it ordinary external messages are delayed.',
  ),
  outMsgQueuePressureRatio: gauge('ton_out_msg_queue_pressure_ratio', 'Outbound queue size divided by ext_msg_queue_size_limit (absent when the limit is 0).'),
  shardBlockSeqno: gauge('ton_shard_block_seqno', 'Seqno of the shard block the queue size belongs to.'),
  walletBalanceTons: gauge('ton_wallet_balance_tons', 'Wallet balance in TON (nanotons / 1e9).'),
  walletSeqno: gauge('ton_wallet_seqno', 'Wallet seqno (wallet contracts only).'),
  walletLastTransactionLt: gauge('ton_wallet_last_transaction_lt', "Logical time of the account's last transaction."),
  walletStatus: gauge('ton_wallet_status', 'Always 1; the status label carries the account status (active, uninit, frozen, nonexist, unknown).'),
  walletInfo: gauge('ton_wallet_info', 'Always 1; labels describe the wallet.'),
  walletMinBalanceTons: gauge('ton_wallet_min_balance_tons', 'Configured minimum balance in TON (minBalanceTons), for one generic alert rule.'),
  walletExtraCurrencyBalance: gauge('ton_wallet_extra_currency_balance', 'Extra currency balance, raw amount.'),
  jettonBalance: gauge(
    'ton_jetton_balance',
    'Jetton balance of a watched wallet in jetton units (decimals applied); 0 when the wallet has no jetton wallet for that master.',
  ),
  jettonMinBalance: gauge('ton_jetton_min_balance', 'Configured minimum jetton balance in jetton units (minJettonBalance), for one generic alert rule.'),
  jettonInfo: gauge('ton_jetton_info', 'Always 1; one series per configured jetton: its master address and decimals.'),
} as const satisfies Record<string, MetricFamily>;
