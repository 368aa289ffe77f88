// The "Chain and validators" dashboard: every chain's newest block, the validator sets, the
// elections and the validators on tonwatch's `validators:` list.
import { panel, row, sel, stat, thresholds, timeseries } from './panels.mjs';

/** Panels empty while no election is open say so: the integration test reads it. */
export const NO_ELECTION_NOTE = 'Empty while no election is open';
/** Panels fed by block creation counters say so: toncenter has no such call. */
export const LITESERVER_NOTE = 'Needs a liteserver upstream';

/** How old each chain's newest block was when tonwatch last asked (seconds). */
const blockAge = (matcher) =>
  `max by (job, instance) (tonwatch_last_success_timestamp_seconds${sel('query="chain_heads"')}) - on (job, instance) group_right () ton_block_timestamp_seconds${sel(matcher)}`;
const validatorSel = sel('validator=~"$validator"');

/** @param {(uid: string, title: string, description: string, tags: string[], panels: unknown[]) => Record<string, any>} withVariables */
export function chainDashboard(withVariables) {
  const board = withVariables(
    'tonwatch-chain',
    'Chain and validators',
    "Every chain's newest block, the validator sets (config 32, 34, 36), the elections and the watched validators, from tonwatch.",
    ['ton', 'tonwatch'],
    [
      panel(
        'stat',
        'Masterchain block age',
        "How old the masterchain's newest block was when tonwatch last asked; the TonMasterchainStalled alert fires above 30 s.",
        [[blockAge('workchain="-1"'), '{{instance}}']],
        { x: 0, y: 0, w: 6, h: 5 },
        stat('s', [
          [null, 'green'],
          [10, 'orange'],
          [30, 'red'],
        ]),
      ),
      panel(
        'stat',
        'Validators in the current set',
        'Validators in config 34, and how many of them validate the masterchain.',
        [
          [`max(ton_validator_set_validators${sel('set="current"')})`, 'validators'],
          [`max(ton_validator_set_main_validators${sel('set="current"')})`, 'masterchain'],
        ],
        { x: 6, y: 0, w: 6, h: 5 },
        stat('short', [[null, 'blue']]),
      ),
      panel(
        'stat',
        'Election open',
        '1 while the elector accepts stakes for the next set (ton_election_open).',
        [[`max(ton_election_open${sel()})`, 'open']],
        { x: 12, y: 0, w: 6, h: 5 },
        stat('short', [
          [null, 'text'],
          [1, 'blue'],
        ]),
      ),
      panel(
        'stat',
        'Election closes in',
        `Time left to enter the open election. ${NO_ELECTION_NOTE}.`,
        [[`max(ton_election_close_timestamp_seconds${sel()}) - time()`, 'closes in']],
        { x: 18, y: 0, w: 6, h: 5 },
        stat('s', [
          [null, 'red'],
          [3600, 'orange'],
          [14400, 'green'],
        ]),
      ),
      panel(
        'timeseries',
        'Newest block age per chain',
        "How old each chain's newest block was when tonwatch last asked, with the alert thresholds (30 s for the masterchain, 60 s for a shard).",
        [[blockAge(''), '{{workchain}}:{{shard}}']],
        { x: 0, y: 5, w: 12, h: 8 },
        timeseries('s', {
          thresholds: thresholds([
            [null, 'green'],
            [30, 'orange'],
            [60, 'red'],
          ]),
          custom: { thresholdsStyle: { mode: 'line' } },
        }),
      ),
      panel(
        'timeseries',
        'Validator sets',
        'Validators in the previous (config 32), current (34) and next (36) sets; the next set exists from the close of its election to its start.',
        [[`max by (set) (ton_validator_set_validators${sel()})`, '{{set}}']],
        { x: 12, y: 5, w: 12, h: 8 },
        timeseries('short'),
      ),
      panel(
        'timeseries',
        'Election',
        `Participants and stakes of the open election, with its minimum stake. ${NO_ELECTION_NOTE}.`,
        [
          [`max(ton_election_total_stake_tons${sel()})`, 'total stake'],
          [`max(ton_election_min_stake_tons${sel()})`, 'min stake'],
        ],
        { x: 0, y: 13, w: 12, h: 8 },
        timeseries('short'),
      ),
      panel(
        'timeseries',
        'Frozen stakes and bonuses per past election',
        'Stakes each past election froze until it unfreezes, and the bonuses it shares then (TON).',
        [
          [`max by (election_id) (ton_past_election_frozen_stake_tons${sel()})`, 'frozen {{election_id}}'],
          [`max by (election_id) (ton_past_election_bonuses_tons${sel()})`, 'bonuses {{election_id}}'],
        ],
        { x: 12, y: 13, w: 12, h: 8 },
        timeseries('short'),
      ),
      row('Watched validators', 21),
      panel(
        'state-timeline',
        'In the sets',
        'Whether each watched validator is in the previous, current and next set (the next one only once its election closed).',
        [[`max by (validator, set) (ton_validator_in_set${validatorSel})`, '{{validator}} {{set}}']],
        { x: 0, y: 22, w: 12, h: 8 },
        { fieldConfig: { defaults: {}, overrides: [] }, options: { showValue: 'never', mergeValues: true } },
      ),
      panel(
        'timeseries',
        'Weight share',
        "Each watched validator's weight over its set's total weight.",
        [[`max by (validator, set) (ton_validator_weight_share${validatorSel})`, '{{validator}} {{set}}']],
        { x: 12, y: 22, w: 12, h: 8 },
        timeseries('percentunit'),
      ),
      panel(
        'timeseries',
        'Stakes',
        `Each watched validator's stake in the open election (0: not entered) and its stakes frozen by past elections (TON). ${NO_ELECTION_NOTE}, for the first.`,
        [
          [`max by (validator) (ton_validator_election_stake_tons${validatorSel})`, '{{validator}} in the election'],
          [`max by (validator) (ton_validator_frozen_stake_tons${validatorSel})`, '{{validator}} frozen'],
        ],
        { x: 0, y: 30, w: 12, h: 8 },
        timeseries('short'),
      ),
      panel(
        'stat',
        'Complaints',
        'Complaints against each watched validator in the past elections the elector still holds.',
        [[`max by (validator) (ton_validator_complaints${validatorSel})`, '{{validator}}']],
        { x: 12, y: 30, w: 12, h: 8 },
        stat('short', [
          [null, 'green'],
          [1, 'red'],
        ]),
      ),
      panel(
        'timeseries',
        'Efficiency',
        `Masterchain blocks each watched masterchain validator created over the last hour against its expected share, with the 90 % alert threshold. ${LITESERVER_NOTE}.`,
        [[`ton:validator_efficiency:ratio1h${validatorSel}`, '{{validator}}']],
        { x: 0, y: 38, w: 12, h: 8 },
        timeseries('percentunit', {
          thresholds: thresholds([
            [null, 'red'],
            [0.9, 'green'],
          ]),
          custom: { thresholdsStyle: { mode: 'line' } },
        }),
      ),
      panel(
        'timeseries',
        'Blocks created',
        `Blocks each watched validator created per minute, masterchain and shardchain. ${LITESERVER_NOTE}.`,
        [[`sum by (validator, chain) (rate(ton_validator_blocks_created_total${validatorSel}[5m])) * 60`, '{{validator}} {{chain}}']],
        { x: 12, y: 38, w: 12, h: 8 },
        timeseries('short'),
      ),
    ],
  );
  board.templating = {
    list: [
      ...board.templating.list,
      {
        name: 'validator',
        label: 'Validator',
        type: 'query',
        datasource: board.panels[0].datasource,
        query: { query: 'label_values(ton_validator_in_set{job=~"$job",instance=~"$instance"}, validator)', refId: 'validator' },
        definition: 'label_values(ton_validator_in_set{job=~"$job",instance=~"$instance"}, validator)',
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
  return board;
}
