// The one source of tonwatch's Prometheus rules. `npm run dashboards` writes them as
// dashboards/prometheus/rules.yml (Prometheus, docker-compose) and as the PrometheusRule
// of deploy/kubernetes/base/ (Prometheus Operator); a test keeps both files equal to this.
//
// Portable: every expression selects tonwatch's series with one selector (default
// job="tonwatch"), and runbook_url is absolute, from a base URL (default: docs/runbook.md on
// the project's repository). Summaries are fixed text per alert, so Alertmanager keeps them
// in a group's common annotations; what differs per series is in the description.
import { stringify } from 'yaml';

export const DEFAULT_JOB_SELECTOR = 'job="tonwatch"';
export const DEFAULT_RUNBOOK_BASE_URL = 'https://github.com/tonwatch/tonwatch/blob/main/docs/runbook.md';

/**
 * @param {{ jobSelector?: string, runbookBaseUrl?: string }} [options]
 * @returns {{ groups: { name: string, rules: Record<string, unknown>[] }[] }}
 */
export function ruleGroups(options = {}) {
  const job = options.jobSelector ?? DEFAULT_JOB_SELECTOR;
  const base = options.runbookBaseUrl ?? DEFAULT_RUNBOOK_BASE_URL;
  /** A metric with the job selector and any further matchers. */
  const m = (name, extra = '') => `${name}{${job}${extra ? `,${extra}` : ''}}`;
  const alert = (name, expr, forDuration, severity, summary, description) => ({
    alert: name,
    expr,
    for: forDuration,
    labels: { severity },
    annotations: { summary, description, runbook_url: `${base}#${name.toLowerCase()}` },
  });
  const shard = '{{ $labels.workchain }}:{{ $labels.shard }}';
  /** How old each chain's newest block was when tonwatch last asked: its gen_utime against the chain-heads poll's last success. */
  const blockAge = (matcher) =>
    `(max by (job, instance) (${m('tonwatch_last_success_timestamp_seconds', 'query="chain_heads"')})\n  - on (job, instance) group_right () ${m('ton_block_timestamp_seconds', matcher)})`;
  return {
    groups: [
      {
        // One group on purpose: rules in a group run in order, so the alerts below always read
        // recording rules computed in the same evaluation.
        name: 'tonwatch',
        rules: [
          { record: 'ton:out_msg_queue_pressure_ratio:max', expr: `max without (workchain, shard) (${m('ton_out_msg_queue_pressure_ratio')})` },
          { record: 'ton:out_msg_queue_size:predict_15m', expr: `predict_linear(${m('ton_out_msg_queue_size')}[10m], 900)` },
          { record: 'ton:shard_block_seqno:deriv5m', expr: `deriv(${m('ton_shard_block_seqno')}[5m])` },
          { record: 'ton:shards:count', expr: `count without (shard) (${m('ton_out_msg_queue_size')})` },
          {
            // A masterchain validator's blocks over the last hour against its expected share (the round's blocks over its
            // main validators), as mytonctrl computes efficiency; liteserver upstreams only.
            record: 'ton:validator_efficiency:ratio1h',
            expr:
              `increase(${m('ton_validator_blocks_created_total', 'chain="masterchain"')}[1h])\n` +
              `  / on (job, instance) group_left ()\n` +
              `    (sum by (job, instance) (increase(${m('ton_blocks_created_total', 'chain="masterchain"')}[1h]))\n` +
              `      / on (job, instance) max by (job, instance) (${m('ton_validator_set_main_validators', 'set="current"')}))\n` +
              `  and on (job, instance, validator) ${m('ton_validator_main', 'set="current"')} == 1\n`,
          },
          {
            record: 'tonwatch:upstream_requests:rate5m',
            expr: `sum by (job, instance, upstream, query, code) (rate(${m('tonwatch_upstream_requests_total')}[5m]))`,
          },
          {
            record: 'tonwatch:upstream_errors:ratio5m',
            expr: `sum by (job, instance, upstream) (rate(${m('tonwatch_upstream_requests_total', 'code!~"200|ok"')}[5m]))\n  / sum by (job, instance, upstream) (rate(${m('tonwatch_upstream_requests_total')}[5m]))\n`,
          },
          alert(
            'TonQueuePressureHigh',
            `${m('ton_out_msg_queue_pressure_ratio')} > 0.5`,
            '5m',
            'warning',
            'A shard outbound message queue is over half the limit',
            `The outbound message queue of shard ${shard} is at {{ $value | humanizePercentage }} of ext_msg_queue_size_limit for 5 minutes (tonwatch {{ $labels.instance }}).`,
          ),
          alert(
            'TonQueuePressureCritical',
            `${m('ton_out_msg_queue_pressure_ratio')} > 0.8`,
            '2m',
            'critical',
            'A shard outbound message queue is near the limit',
            `The outbound message queue of shard ${shard} is at {{ $value | humanizePercentage }} of ext_msg_queue_size_limit; above 100 % ordinary external messages are delayed (tonwatch {{ $labels.instance }}).`,
          ),
          alert(
            'TonQueuePredictedToReachLimit',
            `ton:out_msg_queue_size:predict_15m{${job}} > on (job, instance) group_left () ${m('ton_ext_msg_queue_size_limit')}\n  and on (job, instance, workchain, shard) ${m('ton_out_msg_queue_pressure_ratio')} < 1\n  and on (job, instance) ${m('ton_ext_msg_queue_size_limit')} > 0\n`,
            '5m',
            'warning',
            'A shard outbound message queue is predicted to reach the limit within 15 minutes',
            `A linear fit over the last 10 minutes puts the outbound queue of shard ${shard} at {{ $value | humanize }} messages in 15 minutes, above ext_msg_queue_size_limit (tonwatch {{ $labels.instance }}).`,
          ),
          alert(
            'TonMasterchainStalled',
            `${blockAge('workchain="-1"')} > 30\n  or (changes(${m('ton_shard_block_seqno', 'workchain="-1"')}[5m]) == 0 unless on (job, instance) ${m('ton_block_timestamp_seconds')})\n`,
            '15s',
            'critical',
            'The masterchain has made no block for 30 seconds',
            "The masterchain's newest block was over 30 seconds old when tonwatch {{ $labels.instance }} last asked (with chain.heads off: its seqno has not changed for 5 minutes).",
          ),
          alert(
            'TonShardStalled',
            `${blockAge('workchain!="-1"')} > 60\n  or (changes(${m('ton_shard_block_seqno', 'workchain!="-1"')}[5m]) == 0 unless on (job, instance) ${m('ton_block_timestamp_seconds')})\n`,
            '15s',
            'critical',
            'A shard has made no block for a minute',
            `The newest block of shard ${shard} was over 60 seconds old when tonwatch {{ $labels.instance }} last asked (with chain.heads off: its seqno has not changed for 5 minutes).`,
          ),
          alert(
            'TonwatchDataStale',
            `${m('tonwatch_up')} == 0`,
            '2m',
            'critical',
            'tonwatch has no fresh data',
            'The last {{ $labels.query }} poll of tonwatch {{ $labels.instance }} failed, or its data is older than snapshot.maxAgeSeconds, for 2 minutes.',
          ),
          alert(
            'TonwatchSnapshotNotPersisted',
            `sum without (reason) (increase(${m('tonwatch_snapshot_persist_failures_total')}[10m])) > 0\n  unless on (job, instance) time() - ${m('tonwatch_snapshot_persisted_timestamp_seconds')} < 600\n`,
            '1m',
            'warning',
            'tonwatch cannot write its snapshot',
            'tonwatch {{ $labels.instance }} has failed to write its snapshot files for 10 minutes: it still polls and serves, but a restart would start from an old snapshot (tonwatch_snapshot_persist_failures_total says why).',
          ),
          alert(
            'TonwatchDown',
            `${m('up')} == 0`,
            '1m',
            'critical',
            'tonwatch cannot be scraped',
            'Prometheus has failed to scrape tonwatch {{ $labels.instance }} for 1 minute: the process is down, unreachable, or refuses the scrape (TLS or basic auth).',
          ),
          alert(
            'TonwatchTargetMissing',
            `absent(${m('up')})`,
            '5m',
            'critical',
            'No tonwatch target is being scraped',
            `Prometheus has had no target matching {${job.replaceAll('"', "'")}} for 5 minutes: the target vanished from service discovery or the scrape config, so no other tonwatch alert can fire.`,
          ),
          alert(
            'TonwatchUpstreamRateLimited',
            `sum by (job, instance, upstream) (rate(${m('tonwatch_upstream_requests_total', 'code="429"')}[5m])) > 0.05`,
            '10m',
            'warning',
            'An upstream keeps rate-limiting tonwatch',
            'tonwatch {{ $labels.instance }} received {{ $value | humanize }} HTTP 429 per second from upstream {{ $labels.upstream }} for 10 minutes.',
          ),
          alert(
            'TonwatchUpstreamFailing',
            `tonwatch:upstream_errors:ratio5m{${job}} > 0.5`,
            '10m',
            'warning',
            'Most requests from tonwatch to an upstream fail',
            '{{ $value | humanizePercentage }} of the requests from tonwatch {{ $labels.instance }} to upstream {{ $labels.upstream }} failed over 10 minutes.',
          ),
          alert(
            'TonwatchUpstreamLagging',
            `${m('tonwatch_upstream_lag_blocks')} > on (job, instance) group_left () ${m('tonwatch_upstream_max_lag_blocks')}`,
            '5m',
            'warning',
            'An upstream is behind the chain tip',
            'Upstream {{ $labels.upstream }} of tonwatch {{ $labels.instance }} is {{ $value }} masterchain blocks behind the most advanced upstream, more than lagCheck.maxLagBlocks, for 5 minutes; tonwatch polls the next upstream meanwhile.',
          ),
          alert(
            'TonwatchIndexerLagging',
            `${m('tonwatch_upstream_indexer_lag_blocks')} > on (job, instance) group_left () ${m('tonwatch_upstream_max_lag_blocks')}`,
            '10m',
            'warning',
            "An upstream's v3 indexer is behind its own chain tip",
            'The v3 indexer of upstream {{ $labels.upstream }} (tonwatch {{ $labels.instance }}) is {{ $value }} masterchain blocks behind its own v2 tip, more than lagCheck.maxLagBlocks, for 10 minutes: its wallet states are older than they look.',
          ),
          alert(
            'TonwatchClusterRedisDown',
            `${m('tonwatch_cluster_redis_up')} == 0`,
            '2m',
            'warning',
            'A tonwatch replica cannot reach Redis',
            "tonwatch {{ $labels.instance }} has not reached the cluster's Redis for 2 minutes: it keeps polling and exporting its last share of the wallets on its last share of the budget, but no replica takes over the share of one that dies, and what it polls reaches no other replica.",
          ),
          alert(
            'TonwatchClusterMembersDropped',
            `max by (job) (${m('tonwatch_cluster_members')}) < max by (job) (max_over_time(${m('tonwatch_cluster_members')}[15m]))`,
            '5m',
            'warning',
            'A tonwatch cluster has fewer members than it had',
            "The cluster has {{ $value }} live members, fewer than in the last 15 minutes, for 5 minutes: the others poll the missing replicas' wallets and spend the same budget, with less headroom.",
          ),
          alert(
            'TonwatchConnectionsRefused',
            `sum by (job, instance) (rate(${m('tonwatch_http_connections_dropped_total', 'reason=~"max_connections|max_connections_per_client"')}[5m])) > 0`,
            '10m',
            'warning',
            'tonwatch is refusing client connections',
            'tonwatch {{ $labels.instance }} has refused {{ $value | humanize }} new connections a second for 10 minutes: every connection slot (or every one of a client address) had a request in flight.',
          ),
          alert(
            'TonValidatorNotInNextSet',
            `${m('ton_validator_in_set', 'set="next"')} == 0`,
            '5m',
            'critical',
            'A watched validator is not in the next validator set',
            'Validator {{ $labels.validator }} is not in the next validator set (config 36), elected when the last election closed: it will not validate the next round (tonwatch {{ $labels.instance }}).',
          ),
          alert(
            'TonValidatorMissingElection',
            `${m('ton_validator_election_stake_tons')} == 0\n  and on (job, instance) (${m('ton_election_close_timestamp_seconds')} - time() < 3600)\n`,
            '5m',
            'critical',
            'A watched validator has not entered the election, which closes within an hour',
            'Validator {{ $labels.validator }} has no stake in the open election, which closes within an hour (tonwatch {{ $labels.instance }}).',
          ),
          alert(
            'TonValidatorComplaint',
            `${m('ton_validator_complaints')} > 0`,
            '1m',
            'warning',
            'A complaint was filed against a watched validator',
            'The elector holds {{ $value }} complaint(s) against validator {{ $labels.validator }} in its past elections (tonwatch {{ $labels.instance }}).',
          ),
          alert(
            'TonValidatorLowEfficiency',
            `ton:validator_efficiency:ratio1h{${job}} < 0.9`,
            '15m',
            'warning',
            'A watched validator creates fewer masterchain blocks than its share',
            'Validator {{ $labels.validator }} created {{ $value | humanizePercentage }} of its expected masterchain blocks over the last hour (tonwatch {{ $labels.instance }}).',
          ),
          alert(
            'TonWalletBalanceBelowMinimum',
            `${m('ton_wallet_balance_tons')} < ${m('ton_wallet_min_balance_tons')}`,
            '2m',
            'critical',
            'A watched wallet is under its minimum balance',
            'Wallet {{ $labels.name }} ({{ $labels.address }}) holds {{ $value | humanize }} TON, below its configured minBalanceTons.',
          ),
          alert(
            'TonJettonBalanceBelowMinimum',
            `${m('ton_jetton_balance')} < ${m('ton_jetton_min_balance')}`,
            '2m',
            'critical',
            'A watched wallet is under its minimum jetton balance',
            'Wallet {{ $labels.name }} ({{ $labels.address }}) holds {{ $value | humanize }} {{ $labels.jetton }}, below its configured minJettonBalance.',
          ),
          alert(
            'TonWalletNotActive',
            `${m('ton_wallet_status', 'status!="active"')} == 1`,
            '10m',
            'warning',
            'A watched account is not active',
            'Watched account {{ $labels.name }} ({{ $labels.address }}) has status {{ $labels.status }} (not active) for 10 minutes.',
          ),
        ],
      },
    ],
  };
}

const HEADER = `# tonwatch recording and alerting rules: generated from dashboards/rules.mjs by
# \`npm run dashboards\` (options: --job-selector, --runbook-base-url); do not edit by hand.
# Every alert has a severity label and summary/description/runbook_url annotations.
`;

/** rules.yml for Prometheus' rule_files. */
export function rulesYaml(options = {}) {
  return HEADER + stringify(ruleGroups(options), { lineWidth: 0 });
}

/** The same groups as a Prometheus Operator PrometheusRule. */
export function prometheusRuleYaml(options = {}) {
  const object = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'tonwatch', labels: { 'app.kubernetes.io/name': 'tonwatch', 'app.kubernetes.io/component': 'exporter' } },
    spec: ruleGroups(options),
  };
  return HEADER + stringify(object, { lineWidth: 0 });
}
