import { createQueueHistory } from '../queue-sizes/history.js';
import { createUpstreamHealth } from './upstream-health.js';
import type { Feature } from '../feature.js';

/** The status page's own state: the last hour of queue sizes, and each upstream's recent health. */
export function createStatusPageFeature(): Feature {
  const history = createQueueHistory();
  const upstreamHealth = createUpstreamHealth();
  return {
    name: 'status_page',
    serves: { status: () => ({ history, upstreamHealth }) },
    onQueueSizes: (snapshot) => history.record(snapshot),
    onUpstreamRequest: (upstream, code, at) => upstreamHealth.observe(upstream, code, at),
  };
}
