/** Why a client connection was cut or refused: the `reason` of tonwatch_http_connections_dropped_total. */
export const CONNECTION_DROPS = [
  /** Refused: every slot of listen.maxConnections was mid-request. */
  'max_connections',
  /** Refused: every connection of its client address (listen.maxConnectionsPerClient) was mid-request. */
  'max_connections_per_client',
  /** Closed while idle, to make room for a new connection. */
  'idle_evicted',
  /** A TLS handshake not finished within listen.tlsHandshakeTimeoutSeconds. */
  'tls_handshake_timeout',
  /** Headers or body not received in time. */
  'request_timeout',
  /** A response not taken within listen.sendTimeoutSeconds. */
  'send_timeout',
] as const;

export type ConnectionDrop = (typeof CONNECTION_DROPS)[number];
