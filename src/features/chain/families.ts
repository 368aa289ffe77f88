import { gauge, type MetricFamily } from '../../metrics/catalogue.js';

const counter = (name: string, help: string): MetricFamily => ({ name, help, type: 'counter' });

/** The chain-and-validator series. `set` is previous, current or next (config 32, 34, 36); `validator` a name from `validators:`. */
export const CHAIN_METRICS = {
  blockTimestamp: gauge('ton_block_timestamp_seconds', "gen_utime of the chain's newest block (the masterchain's, or a shard's), unix seconds."),
  setValidators: gauge('ton_validator_set_validators', 'Validators in the set.'),
  setMainValidators: gauge('ton_validator_set_main_validators', 'Validators of the set that validate the masterchain.'),
  setTotalWeight: gauge('ton_validator_set_total_weight', "The set's total weight."),
  setStart: gauge('ton_validator_set_start_timestamp_seconds', 'When the set takes over (utime_since), unix seconds.'),
  setEnd: gauge('ton_validator_set_end_timestamp_seconds', 'When the set is due to hand over (utime_until), unix seconds.'),
  electionOpen: gauge('ton_election_open', '1 while the elector accepts stakes for the next set.'),
  electionId: gauge('ton_election_id', "The open election's id: when the set it elects takes over, unix seconds."),
  electionClose: gauge('ton_election_close_timestamp_seconds', 'When the open election stops accepting stakes, unix seconds.'),
  electionParticipants: gauge('ton_election_participants', 'Validators that have entered the open election.'),
  electionTotalStake: gauge('ton_election_total_stake_tons', 'Stakes entered in the open election, TON.'),
  electionMinStake: gauge('ton_election_min_stake_tons', "The open election's minimum stake, TON."),
  electionTiming: gauge('ton_election_timing_seconds', 'Config 15: validators_elected_for, elections_start_before, elections_end_before, stake_held_for.'),
  stakeLimit: gauge('ton_stake_limit_tons', 'Config 17: min_stake, max_stake and min_total_stake, TON.'),
  stakeMaxFactor: gauge('ton_stake_max_factor', 'Config 17: the highest ratio of a stake to the smallest elected one.'),
  pastFrozenStake: gauge('ton_past_election_frozen_stake_tons', 'Stakes frozen by a past election until it unfreezes, TON.'),
  pastBonuses: gauge('ton_past_election_bonuses_tons', "A past election's bonuses, shared pro rata at unfreezing, TON."),
  pastComplaints: gauge('ton_past_election_complaints', 'Complaints filed in a past election.'),
  pastUnfreeze: gauge('ton_past_election_unfreeze_timestamp_seconds', "When a past election's stakes unfreeze, unix seconds."),
  blocksCreated: counter(
    'ton_blocks_created_total',
    'Blocks created by every validator, masterchain or shardchain, as block_create_stats counts them (liteserver only).',
  ),
  validatorInSet: gauge('ton_validator_in_set', '1 when the watched validator is in the set.'),
  validatorMain: gauge('ton_validator_main', '1 when the watched validator validates the masterchain in the set.'),
  validatorWeightShare: gauge('ton_validator_weight_share', "The watched validator's weight over the set's total weight (0 when not in it)."),
  validatorElectionStake: gauge('ton_validator_election_stake_tons', "The watched validator's stake in the open election, TON (0 when it has not entered)."),
  validatorFrozenStake: gauge('ton_validator_frozen_stake_tons', "The watched validator's stakes frozen by past elections, TON."),
  validatorComplaints: gauge('ton_validator_complaints', 'Complaints against the watched validator in past elections.'),
  validatorLastElected: gauge('ton_validator_last_elected_election_id', 'The newest past election that elected the watched validator (its id, unix seconds).'),
  validatorBlocksCreated: counter('ton_validator_blocks_created_total', 'Blocks the watched validator created, masterchain or shardchain (liteserver only).'),
} as const;
