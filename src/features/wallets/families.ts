import { gauge } from '../../metrics/catalogue.js';

/** The watched wallets' chain series. */
export const WALLET_METRICS = {
  walletBalanceTons: gauge('ton_wallet_balance_tons', 'Wallet balance in TON (nanotons / 1e9).'),
  walletSeqno: gauge('ton_wallet_seqno', 'Wallet seqno (wallet contracts only).'),
  walletLastTransactionLt: gauge('ton_wallet_last_transaction_lt', "Logical time of the account's last transaction."),
  walletStatus: gauge('ton_wallet_status', 'Always 1; the status label carries the account status (active, uninit, frozen, nonexist, unknown).'),
  walletInfo: gauge('ton_wallet_info', 'Always 1; labels describe the wallet.'),
  walletMinBalanceTons: gauge('ton_wallet_min_balance_tons', 'Configured minimum balance in TON (minBalanceTons), for one generic alert rule.'),
  walletExtraCurrencyBalance: gauge('ton_wallet_extra_currency_balance', 'Extra currency balance, raw amount.'),
} as const;
