/**
 * The Redis keys of one cluster, all under `tonwatch:{<name>}:` (the braces make them one
 * hash slot, so the scripts that touch several keys also run on a Redis Cluster).
 */
export interface ClusterKeys {
  /** Sorted set: member id → when its heartbeat expires (Redis time, ms). */
  readonly members: string;
  /** String with a TTL: the member's heartbeat (what it is: version, started). */
  member(id: string): string;
  /** String with a TTL: the id of the replica that polls the queue sizes and jettons. */
  readonly leader: string;
  /** Hash: an upstream's shared token bucket. */
  bucket(upstream: string): string;
  /** Hash: raw address → the wallet's last record (a wallets-file record line). */
  readonly wallets: string;
  /** String: the last queue sizes (the queue file's document). */
  readonly queue: string;
  /** Stream: every record and queue-size snapshot as it is polled. */
  readonly updates: string;
}

export function clusterKeys(name: string): ClusterKeys {
  const prefix = `tonwatch:{${name}}:`;
  return {
    members: `${prefix}members`,
    member: (id) => `${prefix}member:${id}`,
    leader: `${prefix}leader`,
    bucket: (upstream) => `${prefix}budget:${upstream}`,
    wallets: `${prefix}wallets`,
    queue: `${prefix}queue`,
    updates: `${prefix}updates`,
  };
}
