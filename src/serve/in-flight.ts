import type { ServerResponse } from 'node:http';
import type { Route } from './route.js';

/**
 * Per-route in-flight counts: `admit` counts a request against its route's maxInFlight
 * until its response is closed, and says false when the limit is reached.
 */
export function createInFlightLimits(): (route: Route, res: ServerResponse) => boolean {
  const inFlight = new Map<Route, number>();
  return (route, res) => {
    const now = inFlight.get(route) ?? 0;
    const limit = route.maxInFlight?.() ?? 0;
    if (limit > 0 && now >= limit) return false;
    inFlight.set(route, now + 1);
    route.onInFlight?.(now + 1);
    res.once('close', () => {
      const left = (inFlight.get(route) ?? 1) - 1;
      inFlight.set(route, left);
      route.onInFlight?.(left);
    });
    return true;
  };
}
