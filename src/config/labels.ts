/** Label names tonwatch itself puts on wallet series; user labels must not reuse them. */
const RESERVED_LABELS: ReadonlySet<string> = new Set([
  'address',
  'name',
  'status',
  'user_friendly',
  'wallet_type',
  'wallet_id',
  'currency',
  'workchain',
  'shard',
  'query',
  'upstream',
  'code',
  'endpoint',
  'job',
  'instance',
  'le',
  'quantile',
  'version',
  'node_version',
  'alertname',
  'severity',
]);

/** Why a label name cannot be used, or null when it can. */
export function labelNameProblem(name: string): string | null {
  if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name)) return `"${name}" is not a valid Prometheus label name`;
  if (name.startsWith('__')) return `"${name}": label names starting with __ are reserved by Prometheus`;
  if (RESERVED_LABELS.has(name)) return `"${name}" is a label name tonwatch itself uses`;
  return null;
}
