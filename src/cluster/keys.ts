/**
 * The Redis keys of one cluster, all under `tonwatch:{<name>}:` (the braces make them one
 * hash slot, so the scripts that touch several keys also run on a Redis Cluster).
 */
export interface ClusterKeys {
  /** Sorted set: member id → when its heartbeat expires (Redis time, ms). */
  readonly members: string;
  /** String with a TTL: the member's heartbeat (what it is: version, started). */
  member(id: string): string;
  /** String with a TTL: the id of the replica that leads (polls what one replica polls for all). */
  readonly leader: string;
  /** Hash: an upstream's shared token bucket. */
  bucket(upstream: string): string;
  /** Hash: a channel's records (share.ts), by key: a feature's records as its spec encodes them. */
  channel(name: string): string;
  /** Hash: a channel's markers (share.ts), by member and marker key: the newest of each. */
  markers(name: string): string;
  /** Stream: every record, as it is published. */
  readonly updates: string;
}

export function clusterKeys(name: string): ClusterKeys {
  const prefix = `tonwatch:{${name}}:`;
  return {
    members: `${prefix}members`,
    member: (id) => `${prefix}member:${id}`,
    leader: `${prefix}leader`,
    bucket: (upstream) => `${prefix}budget:${upstream}`,
    channel: (name) => `${prefix}part:${name}`,
    markers: (name) => `${prefix}markers:${name}`,
    updates: `${prefix}updates`,
  };
}
