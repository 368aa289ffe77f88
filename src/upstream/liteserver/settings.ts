import type { UpstreamCommon } from '../../domain/config.js';

/** One liteserver: where it listens and its ed25519 public key (base64, 32 bytes). */
export interface LiteserverEndpoint {
  readonly host: string;
  readonly port: number;
  readonly publicKey: string;
}

/** TON liteservers spoken to directly over ADNL (`kind: liteserver`); queries go round-robin among them. */
export interface LiteserverUpstreamSettings extends UpstreamCommon {
  readonly kind: 'liteserver';
  /** Absolute path of the network global config file, when the liteservers came from one (watched like the config). */
  readonly globalConfig?: string | undefined;
  /** Inline, or read from globalConfig. At least one. */
  readonly liteservers: readonly LiteserverEndpoint[];
}

declare module '../../domain/config.js' {
  interface UpstreamSettingsByKind {
    liteserver: LiteserverUpstreamSettings;
  }
}
