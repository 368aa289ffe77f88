import { Gauge, type Registry } from 'prom-client';

/**
 * Gauges whose value is read when /metrics is rendered, from the daemon's state, rather
 * than set as things happen. A key (or the whole gauge) whose value is undefined has no
 * series: absent, not frozen at an old value.
 */

/** One series per `label` value that `read` gives a number for. */
export function labelledReadGauge(
  registers: Registry[],
  name: string,
  help: string,
  label: string,
  read: () => Iterable<readonly [string, number | undefined]>,
): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers,
    collect() {
      this.reset();
      for (const [key, value] of read()) if (value !== undefined) this.set({ [label]: key }, value);
    },
  });
}

/** One unlabelled series while `read` gives a number. */
export function readGauge(registers: Registry[], name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      const value = read();
      // An unlabelled gauge holds 0 after reset(); removing its one series leaves it absent.
      if (value === undefined) this.remove({});
      else this.set(value);
    },
  });
}
