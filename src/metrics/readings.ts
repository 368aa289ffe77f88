import type { Registry } from 'prom-client';

/**
 * Node's own process_* and nodejs_* metrics are gathered at most this often, in ms: they
 * read /proc and work out event-loop delay percentiles, which at hundreds of scrapes a
 * second was most of what a scrape cost beyond sending pre-rendered blocks.
 */
export const PROCESS_METRICS_EVERY_MS = 1000;

/**
 * A reading of tonwatch's own metrics serves the scrapes that follow it for up to this
 * many ms, as long as nothing but scrapes happened in between: no poll, upstream request,
 * request to another endpoint, reload or read-through. What a scrape itself changes, and
 * what is read from the daemon's state (snapshot ages, up), shows at most this late.
 * (The figures that made it worth it: docs/benchmarks.md.)
 */
export const OWN_METRICS_REUSE_MS = 100;

export interface Readings {
  /** The own metrics' text and the process metrics' text, each read again only when due. */
  texts(): Promise<[Buffer, Buffer]>;
  /** Something other than a scrape changed the own metrics: the next scrape reads them again. */
  changed(): void;
  /** `change` wrapped so that it marks the own metrics changed first. */
  changing<A extends unknown[]>(this: void, change: (...args: A) => void): (...args: A) => void;
}

export function createReadings(now: () => number, own: Registry, process: Registry): Readings {
  let processText: { at: number; text: Promise<Buffer> } | null = null;
  let ownText: { at: number; text: Promise<Buffer> } | null = null;
  let changed = true;
  return {
    async texts() {
      const at = now();
      if (processText === null || at - processText.at >= PROCESS_METRICS_EVERY_MS || at < processText.at) {
        processText = { at, text: process.metrics().then((text) => Buffer.from(text)) };
      }
      if (ownText === null || changed || at - ownText.at >= OWN_METRICS_REUSE_MS || at < ownText.at) {
        changed = false;
        const reading = { at, text: own.metrics().then((text) => Buffer.from(text)) };
        // A failed reading is not reused.
        reading.text.catch(() => {
          if (ownText === reading) ownText = null;
        });
        ownText = reading;
      }
      return Promise.all([ownText.text, processText.text]);
    },
    changed: () => {
      changed = true;
    },
    changing:
      (change) =>
      (...args) => {
        changed = true;
        change(...args);
      },
  };
}
