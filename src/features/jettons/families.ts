import { gauge } from '../../metrics/catalogue.js';

/** The watched wallets' jetton series. */
export const JETTON_METRICS = {
  jettonBalance: gauge(
    'ton_jetton_balance',
    'Jetton balance of a watched wallet in jetton units (decimals applied); 0 when the wallet has no jetton wallet for that master.',
  ),
  jettonMinBalance: gauge('ton_jetton_min_balance', 'Configured minimum jetton balance in jetton units (minJettonBalance), for one generic alert rule.'),
  jettonInfo: gauge('ton_jetton_info', 'Always 1; one series per configured jetton: its master address and decimals.'),
} as const;
