// Dashboards and rules as code: `npm run dashboards` writes dashboards/grafana/dashboards/*.json,
// dashboards/prometheus/rules.yml and deploy/kubernetes/base/prometheusrule.yaml (rules from
// ./rules.mjs). A test checks the committed files are what this script writes, so edit
// here, not there.
//
//   node dashboards/generate.mjs [--job-selector 'job="tonwatch"'] [--runbook-base-url URL] [--out DIR]
//
// --job-selector scopes every rule (default job="tonwatch") and narrows the dashboards' job
// variable (by default they list every job that exports tonwatch_build_info).
// --runbook-base-url: where runbook_url points (default: docs/runbook.md on the project's repository).
// --out DIR writes the three kinds of files under DIR instead of over the committed ones.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prometheusRuleYaml, rulesYaml } from './rules.mjs';

import { chainDashboard } from './chain.mjs';
import { dashboard, ds, panel, resetIds, row, sel, stat, templating, thresholds, timeseries, timeseriesWithLimit } from './panels.mjs';

/** @param {{ jobSelector?: string }} [options] */
export function buildDashboards(options = {}) {
  resetIds();
  const variables = templating(options.jobSelector);
  const withVariables = (uid, title, description, tags, panels) => dashboard(uid, title, description, tags, panels, variables);
  const queue = withVariables(
    'tonwatch-queue-pressure',
    'TON queue pressure',
    'Outbound message queue size per shard against ext_msg_queue_size_limit, from tonwatch.',
    ['ton', 'tonwatch'],
    [
      panel(
        'stat',
        'Highest pressure across shards',
        'The largest queue size / ext_msg_queue_size_limit over all shards. Above 1 the collator skips ordinary external messages: wallet sends are delayed.',
        [[`max(ton_out_msg_queue_pressure_ratio${sel()})`, 'max ratio']],
        { x: 0, y: 0, w: 6, h: 6 },
        stat('percentunit', [
          [null, 'green'],
          [0.5, 'orange'],
          [0.8, 'red'],
        ]),
      ),
      panel(
        'stat',
        'External message queue limit',
        'ext_msg_queue_size_limit as the upstream reports it (8000 on mainnet).',
        [[`max(ton_ext_msg_queue_size_limit${sel()})`, 'limit']],
        { x: 6, y: 0, w: 6, h: 6 },
        stat('short', [[null, 'blue']]),
      ),
      panel(
        'stat',
        'Basechain shards',
        'Number of basechain shards now; it changes when shards split (queue above 4096) or merge (under 2047).',
        [[`count(ton_out_msg_queue_size${sel('workchain="0"')})`, 'shards']],
        { x: 12, y: 0, w: 6, h: 6 },
        stat('short', [[null, 'blue']]),
      ),
      panel(
        'stat',
        'Time to reach the limit',
        'Estimated seconds until the fastest-growing shard queue reaches the limit, from a linear fit over the last 10 minutes (predict_linear). Empty on a calm network: no queue is growing towards the limit.',
        [
          [
            `min((ton_ext_msg_queue_size_limit${sel()} - on(job, instance) group_right ton_out_msg_queue_size${sel()}) / on(job, instance, workchain, shard) (deriv(ton_out_msg_queue_size${sel()}[10m]) > 0))`,
            'seconds',
          ],
        ],
        { x: 18, y: 0, w: 6, h: 6 },
        stat('s', [
          [null, 'red'],
          [900, 'orange'],
          [3600, 'green'],
        ]),
      ),
      panel(
        'timeseries',
        'Queue size per shard',
        "Messages in each shard's outbound queue; the dashed line is ext_msg_queue_size_limit.",
        [
          [`ton_out_msg_queue_size${sel()}`, '{{workchain}}:{{shard}}'],
          [`max(ton_ext_msg_queue_size_limit${sel()})`, 'limit'],
        ],
        { x: 0, y: 6, w: 12, h: 9 },
        timeseriesWithLimit('short'),
      ),
      panel(
        'timeseries',
        'Pressure ratio per shard',
        'Queue size / ext_msg_queue_size_limit per shard, with the 0.5 (warning) and 0.8 (critical) alert thresholds.',
        [[`ton_out_msg_queue_pressure_ratio${sel()}`, '{{workchain}}:{{shard}}']],
        { x: 12, y: 6, w: 12, h: 9 },
        timeseries('percentunit', {
          thresholds: thresholds([
            [null, 'green'],
            [0.5, 'orange'],
            [0.8, 'red'],
          ]),
          custom: { thresholdsStyle: { mode: 'line' } },
        }),
      ),
      panel(
        'timeseries',
        'Queue size predicted in 15 minutes',
        'predict_linear over the last 10 minutes, 15 minutes ahead, per shard (recording rule ton:out_msg_queue_size:predict_15m).',
        [[`ton:out_msg_queue_size:predict_15m${sel()}`, '{{workchain}}:{{shard}}']],
        { x: 0, y: 15, w: 12, h: 8 },
        timeseries('short'),
      ),
      panel(
        'timeseries',
        'Block production rate per shard',
        'New shard blocks per second (seqno derivative over 5 minutes). A shard whose line drops to 0 has stopped producing blocks.',
        [[`ton:shard_block_seqno:deriv5m${sel()}`, '{{workchain}}:{{shard}}']],
        { x: 12, y: 15, w: 12, h: 8 },
        timeseries('short'),
      ),
      panel(
        'timeseries',
        'Shard count over time',
        'Shards per workchain: steps up on a split, down on a merge.',
        [[`count by (workchain) (ton_out_msg_queue_size${sel()})`, 'workchain {{workchain}}']],
        { x: 0, y: 23, w: 24, h: 7 },
        timeseries('short'),
      ),
    ],
  );

  resetIds();
  const walletSel = sel('name=~"$wallet"');
  const wallets = withVariables(
    'tonwatch-wallets',
    'TON wallets',
    'Balances and states of the wallets on the tonwatch watchlist.',
    ['ton', 'tonwatch'],
    [
      panel(
        'table',
        'Watched wallets',
        'One row per watched wallet: name, address, user-friendly form, type, status, balance, threshold, seqno, last transaction lt.',
        [
          [`ton_wallet_info${walletSel}`, '', { format: 'table', instant: true }],
          [`ton_wallet_balance_tons${walletSel}`, '', { format: 'table', instant: true }],
          [`ton_wallet_min_balance_tons${walletSel}`, '', { format: 'table', instant: true }],
          [`ton_wallet_seqno${walletSel}`, '', { format: 'table', instant: true }],
          [`ton_wallet_last_transaction_lt${walletSel}`, '', { format: 'table', instant: true }],
          [`ton_wallet_status${walletSel}`, '', { format: 'table', instant: true }],
        ],
        { x: 0, y: 0, w: 24, h: 10 },
        {
          transformations: [
            { id: 'merge', options: {} },
            {
              id: 'organize',
              options: {
                excludeByName: { Time: true, job: true, instance: true, __name__: true, 'Value #A': true, 'Value #F': true },
                renameByName: { 'Value #B': 'balance (TON)', 'Value #C': 'threshold (TON)', 'Value #D': 'seqno', 'Value #E': 'last transaction lt' },
                indexByName: { name: 0, address: 1, user_friendly: 2, wallet_type: 3, status: 4, 'Value #B': 5, 'Value #C': 6, 'Value #D': 7, 'Value #E': 8 },
              },
            },
          ],
          fieldConfig: { defaults: {}, overrides: [{ matcher: { id: 'byName', options: 'balance (TON)' }, properties: [{ id: 'decimals', value: 3 }] }] },
        },
      ),
      panel(
        'stat',
        'Wallets under their threshold',
        'Wallets whose balance is below their configured minBalanceTons; no value while every wallet is above its threshold.',
        [[`count(ton_wallet_balance_tons${walletSel} < ton_wallet_min_balance_tons${walletSel})`, 'under threshold']],
        { x: 0, y: 10, w: 6, h: 6 },
        stat('short', [
          [null, 'green'],
          [1, 'red'],
        ]),
      ),
      panel(
        'stat',
        'Wallets not active',
        'Watched accounts whose status is not active (uninit, frozen, nonexist, or unknown to the upstream).',
        [[`count(ton_wallet_status${sel('status!="active"')})`, 'not active']],
        { x: 6, y: 10, w: 6, h: 6 },
        stat('short', [
          [null, 'green'],
          [1, 'orange'],
        ]),
      ),
      panel(
        'stat',
        'Total balance',
        'Sum of the watched balances, in TON.',
        [[`sum(ton_wallet_balance_tons${walletSel})`, 'TON']],
        { x: 12, y: 10, w: 6, h: 6 },
        stat('short', [[null, 'blue']]),
      ),
      panel(
        'stat',
        'Watched wallets',
        'Addresses on the watchlist (tonwatch_watchlist_size).',
        [[`sum(tonwatch_watchlist_size${sel()})`, 'wallets']],
        { x: 18, y: 10, w: 6, h: 6 },
        stat('short', [[null, 'blue']]),
      ),
      panel(
        'timeseries',
        'Balances over time',
        'Balance of each watched wallet, in TON.',
        [[`ton_wallet_balance_tons${walletSel}`, '{{name}}']],
        { x: 0, y: 16, w: 12, h: 9 },
        timeseries('short'),
      ),
      panel(
        'timeseries',
        'Balance headroom over threshold',
        'Balance minus minBalanceTons for wallets with a threshold; below 0 the wallet-under-threshold alert fires.',
        [[`ton_wallet_balance_tons${walletSel} - ton_wallet_min_balance_tons${walletSel}`, '{{name}}']],
        { x: 12, y: 16, w: 12, h: 9 },
        timeseries('short'),
      ),
      panel(
        'state-timeline',
        'Status changes',
        'Account status of each watched wallet over time.',
        [[`max by (name, status) (ton_wallet_status${walletSel})`, '{{name}} {{status}}']],
        { x: 0, y: 25, w: 24, h: 9 },
        { fieldConfig: { defaults: {}, overrides: [] }, options: { showValue: 'never', mergeValues: true } },
      ),
      panel(
        'timeseries',
        'Jetton balances over time',
        "Balance of each watched wallet in each watched jetton (USD₮ and the others in the config's jettons), in jetton units; 0 for a wallet with no jetton wallet of that master.",
        [[`ton_jetton_balance${walletSel}`, '{{name}} {{jetton}}']],
        { x: 0, y: 34, w: 18, h: 9 },
        timeseries('short'),
      ),
      panel(
        'stat',
        'Wallets under a jetton threshold',
        '(wallet, jetton) pairs whose balance is below their configured minJettonBalance; no value while every one is above its threshold.',
        [[`count(ton_jetton_balance${walletSel} < ton_jetton_min_balance${walletSel})`, 'under threshold']],
        { x: 18, y: 34, w: 6, h: 9 },
        stat('short', [
          [null, 'green'],
          [1, 'red'],
        ]),
      ),
    ],
  );
  wallets.templating = {
    list: [
      ...variables.list,
      {
        name: 'wallet',
        label: 'Wallet',
        type: 'query',
        datasource: ds,
        query: { query: 'label_values(ton_wallet_status{job=~"$job",instance=~"$instance"}, name)', refId: 'wallet' },
        definition: 'label_values(ton_wallet_status{job=~"$job",instance=~"$instance"}, name)',
        includeAll: true,
        multi: true,
        allValue: '.+',
        current: {},
        refresh: 2,
        hide: 0,
        sort: 1,
      },
    ],
  };

  resetIds();
  const health = withVariables(
    'tonwatch-health',
    'tonwatch health',
    'The exporter itself: poll success, data age, upstream requests, served requests, reloads.',
    ['tonwatch'],
    [
      panel(
        'stat',
        'Polls up',
        '1 when the last poll of the query succeeded and its data is fresh (tonwatch_up).',
        [[`tonwatch_up${sel()}`, '{{instance}} {{query}}']],
        { x: 0, y: 0, w: 8, h: 5 },
        stat('short', [
          [null, 'red'],
          [1, 'green'],
        ]),
      ),
      panel(
        'stat',
        'Config reload',
        '1 when the last configuration (re)load succeeded; 0 means a bad config was refused and the old one is still running.',
        [[`tonwatch_config_last_reload_successful${sel()}`, '{{instance}}']],
        { x: 8, y: 0, w: 4, h: 5 },
        stat('short', [
          [null, 'red'],
          [1, 'green'],
        ]),
      ),
      panel(
        'table',
        'Build info',
        'tonwatch and Node.js versions per instance.',
        [[`tonwatch_build_info${sel()}`, '', { format: 'table', instant: true }]],
        { x: 12, y: 0, w: 12, h: 5 },
        { transformations: [{ id: 'organize', options: { excludeByName: { Time: true, Value: true, __name__: true } } }] },
      ),
      panel(
        'timeseries',
        'Snapshot age',
        'Age of the data served for each query; it should stay under one poll interval, and above snapshot.maxAgeSeconds the data is no longer served.',
        [[`tonwatch_snapshot_age_seconds${sel()}`, '{{instance}} {{query}}']],
        { x: 0, y: 5, w: 12, h: 8 },
        timeseries('s'),
      ),
      panel(
        'timeseries',
        'Poll duration',
        'p50 and p99 of one poll cycle, retries and budget waits included.',
        [
          [`histogram_quantile(0.5, sum by (le, query) (rate(tonwatch_poll_duration_seconds_bucket${sel()}[$__rate_interval])))`, 'p50 {{query}}'],
          [`histogram_quantile(0.99, sum by (le, query) (rate(tonwatch_poll_duration_seconds_bucket${sel()}[$__rate_interval])))`, 'p99 {{query}}'],
        ],
        { x: 12, y: 5, w: 12, h: 8 },
        timeseries('s'),
      ),
      panel(
        'timeseries',
        'Upstream requests by code',
        'Requests per second to each upstream, by HTTP status or error class (timeout, network, bad_body, upstream_error).',
        [[`tonwatch:upstream_requests:rate5m${sel()}`, '{{upstream}} {{query}} {{code}}']],
        { x: 0, y: 13, w: 12, h: 8 },
        timeseries('reqps'),
      ),
      panel(
        'timeseries',
        'Upstream 429s',
        'Rate-limited requests per second per upstream. Empty on a calm network: nothing is rate-limited (checked under the flaky scenario).',
        [[`sum by (upstream) (rate(tonwatch_upstream_requests_total${sel('code="429"')}[$__rate_interval]))`, '{{upstream}}']],
        { x: 12, y: 13, w: 12, h: 8 },
        timeseries('reqps'),
      ),
      panel(
        'timeseries',
        'Upstream latency p99',
        'p99 of one upstream request, per upstream and query.',
        [
          [
            `histogram_quantile(0.99, sum by (le, upstream, query) (rate(tonwatch_upstream_request_duration_seconds_bucket${sel()}[$__rate_interval])))`,
            '{{upstream}} {{query}}',
          ],
        ],
        { x: 0, y: 21, w: 12, h: 8 },
        timeseries('s'),
      ),
      panel(
        'timeseries',
        'Served requests by endpoint and code',
        'Requests answered by tonwatch itself (its query endpoints, /metrics, health).',
        [[`sum by (endpoint, code) (rate(tonwatch_served_requests_total${sel()}[$__rate_interval]))`, '{{endpoint}} {{code}}']],
        { x: 12, y: 21, w: 12, h: 8 },
        timeseries('reqps'),
      ),
      panel(
        'timeseries',
        'Upstream lag (blocks)',
        'From the lag check: masterchain blocks each upstream is behind the most advanced one (tip), and how far its v3 indexer is behind its own v2 tip (indexer). Past the dashed limit (lagCheck.maxLagBlocks) tonwatch passes the upstream over.',
        [
          [`max by (upstream) (tonwatch_upstream_lag_blocks${sel()})`, '{{upstream}} tip'],
          [`max by (upstream) (tonwatch_upstream_indexer_lag_blocks${sel()})`, '{{upstream}} indexer'],
          [`max(tonwatch_upstream_max_lag_blocks${sel()})`, 'limit'],
        ],
        { x: 0, y: 29, w: 24, h: 8 },
        timeseriesWithLimit('short'),
      ),
      row('Cluster', 37),
      panel(
        'stat',
        'Cluster members',
        'Live replicas as each replica read them from Redis at its last heartbeat (tonwatch_cluster_members). Empty for a single process (no cluster section).',
        [[`tonwatch_cluster_members${sel()}`, '{{instance}}']],
        { x: 0, y: 38, w: 8, h: 5 },
        stat('short', [
          [null, 'red'],
          [1, 'green'],
        ]),
      ),
      panel(
        'stat',
        'Redis reachable',
        '1 while the replica reaches Redis; 0: it goes on polling its last share on its last share of the budget, and nobody takes over a dead replica (tonwatch_cluster_redis_up). Empty for a single process.',
        [[`tonwatch_cluster_redis_up${sel()}`, '{{instance}}']],
        { x: 8, y: 38, w: 8, h: 5 },
        stat('short', [
          [null, 'red'],
          [1, 'green'],
        ]),
      ),
      panel(
        'stat',
        'Leader',
        'The replica that polls and exports the queue sizes and jettons shows 1 (tonwatch_cluster_leader); exactly one should. Empty for a single process.',
        [[`tonwatch_cluster_leader${sel()}`, '{{instance}}']],
        { x: 16, y: 38, w: 8, h: 5 },
        stat('short', [
          [null, 'text'],
          [1, 'blue'],
        ]),
      ),
      panel(
        'timeseries',
        'Owned wallets per replica',
        'Watched wallets each replica polls and exports (tonwatch_cluster_owned_wallets), and their sum, which equals the watchlist once the cluster has settled. Empty for a single process.',
        [
          [`tonwatch_cluster_owned_wallets${sel()}`, '{{instance}}'],
          [`sum(tonwatch_cluster_owned_wallets${sel()})`, 'all replicas'],
          [`max(tonwatch_watchlist_size${sel()})`, 'watchlist'],
        ],
        { x: 0, y: 43, w: 24, h: 8 },
        timeseries('short'),
      ),
    ],
  );

  resetIds();
  const chain = chainDashboard(withVariables);

  return { 'queue-pressure': queue, wallets, health, chain };
}

/** File name → the exact text written for it. */
export function dashboardFiles(options = {}) {
  return Object.fromEntries(Object.entries(buildDashboards(options)).map(([name, value]) => [`${name}.json`, `${JSON.stringify(value, null, 2)}\n`]));
}

/**
 * Every generated file, by its path from the repository root.
 * @param {{ jobSelector?: string, runbookBaseUrl?: string }} [options]
 */
export function generatedFiles(options = {}) {
  const files = {};
  for (const [file, text] of Object.entries(dashboardFiles(options))) files[`dashboards/grafana/dashboards/${file}`] = text;
  files['dashboards/prometheus/rules.yml'] = rulesYaml(options);
  files['deploy/kubernetes/base/prometheusrule.yaml'] = prometheusRuleYaml(options);
  return files;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { 'job-selector': { type: 'string' }, 'runbook-base-url': { type: 'string' }, out: { type: 'string' } } });
  const root = values.out ?? fileURLToPath(new URL('..', import.meta.url));
  const options = {
    ...(values['job-selector'] === undefined ? {} : { jobSelector: values['job-selector'] }),
    ...(values['runbook-base-url'] === undefined ? {} : { runbookBaseUrl: values['runbook-base-url'] }),
  };
  for (const [path, text] of Object.entries(generatedFiles(options))) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}
