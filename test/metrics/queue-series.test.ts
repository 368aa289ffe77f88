import { describe, expect, it } from 'vitest';
import { renderQueueSeries } from '../../src/features/queue-sizes/series.js';
import { queueSnapshot } from '../helpers/fixtures.js';

describe('queue snapshot → metrics', () => {
  it('renders every queue series with hex shard labels', () => {
    const text = renderQueueSeries(queueSnapshot());
    const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(samples).toEqual([
      'ton_ext_msg_queue_size_limit 8000',
      'ton_out_msg_queue_size{workchain="-1",shard="8000000000000000"} 0',
      'ton_out_msg_queue_size{workchain="0",shard="4000000000000000"} 2000',
      'ton_out_msg_queue_size{workchain="0",shard="C000000000000000"} 9000',
      'ton_out_msg_queue_pressure_ratio{workchain="-1",shard="8000000000000000"} 0',
      'ton_out_msg_queue_pressure_ratio{workchain="0",shard="4000000000000000"} 0.25',
      'ton_out_msg_queue_pressure_ratio{workchain="0",shard="C000000000000000"} 1.125',
      'ton_shard_block_seqno{workchain="-1",shard="8000000000000000"} 51149550',
      'ton_shard_block_seqno{workchain="0",shard="4000000000000000"} 56000001',
      'ton_shard_block_seqno{workchain="0",shard="C000000000000000"} 56000002',
    ]);
    expect(text).toContain('# TYPE ton_out_msg_queue_size gauge\n');
  });

  it('leaves the ratio out when the limit is 0', () => {
    const text = renderQueueSeries(queueSnapshot({ extMsgQueueSizeLimit: 0 }));
    expect(text).not.toContain('ton_out_msg_queue_pressure_ratio');
    expect(text).toContain('ton_ext_msg_queue_size_limit 0');
  });

  it('drops series of shards that merged away', () => {
    const merged = queueSnapshot();
    const text = renderQueueSeries({ ...merged, shards: [merged.shards[0]!, { ...merged.shards[1]!, shard: '-9223372036854775808', workchain: 0 }] });
    expect(text).not.toContain('4000000000000000');
    expect(text).not.toContain('C000000000000000');
    expect(text).toContain('ton_out_msg_queue_size{workchain="0",shard="8000000000000000"} 2000');
  });
});
