import { pollJob } from '../../schedule/poll-job.js';
import type { ScheduledJob } from '../../schedule/scheduler.js';
import { isFresh } from '../../snapshot/freshness.js';
import type { Feature, FeatureContext, FeatureParts, GenerationParts } from '../feature.js';
import { CHAIN_CONFIG } from './config.js';
import { CHAIN_METRICS } from './families.js';
import { pollHeads, pollValidators } from './poll.js';
import { renderChainSeries } from './series.js';
import { chainSection, chainStatusOf } from './status.js';
import type { HeadsSnapshot, ValidatorsSnapshot } from './types.js';
import { decodeChainRecord, encodeChainRecord, type ChainRecord } from './wire.js';

const HEADS = 'chain_heads';
const VALIDATORS = 'validators';

/**
 * Chain and validator health: every chain's newest block (ton_block_timestamp_seconds), the
 * validator sets of config 32/34/36, the election rules of config 15/17, the elector's open
 * and past elections, the validators on `validators:` and (from a liteserver) the blocks each
 * created. Two polls, `schedule.chainHeads` and `schedule.validators`, below the queue-size
 * poll in the budget; held in memory (a restart asks again within a schedule). In a cluster,
 * the replica that leads polls and exports them and shares them with the others.
 */
export const chain: Feature = {
  name: 'chain',
  config: CHAIN_CONFIG,
  families: Object.values(CHAIN_METRICS),
  create: (ctx) => createChain(ctx),
};

function createChain(ctx: FeatureContext): FeatureParts {
  const { now, current } = ctx;
  let heads: HeadsSnapshot | null = null;
  let validators: ValidatorsSnapshot | null = null;
  let creatorsSaid: boolean | null = null;
  const maxAgeSeconds = (): number => current().config.snapshot.maxAgeSeconds;
  const fresh = <T extends { fetchedAt: number }>(snapshot: T | null): T | null =>
    snapshot !== null && isFresh(snapshot.fetchedAt, now(), maxAgeSeconds()) ? snapshot : null;

  const apply = (record: ChainRecord): void => {
    if (record.part === 'heads' && (heads === null || record.snapshot.fetchedAt > heads.fetchedAt)) heads = record.snapshot;
    if (record.part === 'validators' && (validators === null || record.snapshot.fetchedAt > validators.fetchedAt)) validators = record.snapshot;
  };
  const channel = ctx.cluster.channel<ChainRecord>('chain', {
    keyOf: (record) => record.part,
    encode: encodeChainRecord,
    decode: decodeChainRecord,
    receive: (records) => records.forEach(apply),
    held: () =>
      ctx.cluster.leads()
        ? [
            ...(heads === null ? [] : [{ part: 'heads' as const, snapshot: heads }]),
            ...(validators === null ? [] : [{ part: 'validators' as const, snapshot: validators }]),
          ]
        : [],
  });
  const publish = (record: ChainRecord): void => {
    apply(record);
    channel.publish([record]);
  };

  const creatorsAvailable = (available: boolean): void => {
    if (creatorsSaid === available) return;
    creatorsSaid = available;
    if (!available) ctx.logger.info('no upstream gives block creation counters (liteServer.getValidatorStats): ton_validator_blocks_created_total is left out');
  };

  // Rendered once per change of what it shows; in a cluster, exported by the replica that leads.
  let block: { key: readonly unknown[]; text: Buffer } = { key: [], text: Buffer.alloc(0) };
  const series = (): Buffer => {
    const shown = ctx.cluster.leads() ? [fresh(heads), fresh(validators)] : [null, null];
    const key = [...shown, current().config.validators];
    if (key.some((part, i) => part !== block.key[i]) || block.key.length === 0) {
      block = {
        key,
        text: Buffer.from(renderChainSeries(shown[0] as HeadsSnapshot | null, shown[1] as ValidatorsSnapshot | null, current().config.validators)),
      };
    }
    return block.text;
  };

  return {
    jobs: (generation) => chainJobs(ctx, generation, { publish, creatorsAvailable }),
    series: [{ kind: 'text', text: series }],
    polls: [
      { query: HEADS, active: () => current().config.chain.heads, fetchedAt: () => heads?.fetchedAt },
      { query: VALIDATORS, active: () => current().config.chain.validators, fetchedAt: () => validators?.fetchedAt },
    ],
    provides: {
      statusSections: [chainSection((wallNow) => chainStatusOf(fresh(heads), fresh(validators), current().config.validators, wallNow), ctx.wallOffset)],
    },
  };
}

/** The two polls of a configuration, each on its schedule; in a cluster, on the replica that leads. */
function chainJobs(
  ctx: FeatureContext,
  { config, client }: GenerationParts,
  parts: { readonly publish: (record: ChainRecord) => void; readonly creatorsAvailable: (available: boolean) => void },
): ScheduledJob[] {
  const due = () => Promise.resolve(ctx.cluster.leads());
  const jobs: ScheduledJob[] = [];
  if (config.chain.heads) {
    jobs.push(
      pollJob(ctx, HEADS, config.schedule.chainHeads, { due }, (signal) =>
        pollHeads({ client, publish: (snapshot) => parts.publish({ part: 'heads', snapshot }) }, signal),
      ),
    );
  }
  if (config.chain.validators) {
    jobs.push(
      pollJob(ctx, VALIDATORS, config.schedule.validators, { due }, (signal) =>
        pollValidators({ client, publish: (snapshot) => parts.publish({ part: 'validators', snapshot }), creatorsAvailable: parts.creatorsAvailable }, signal),
      ),
    );
  }
  return jobs;
}
