import type { MetricFamily } from './catalogue.js';

/**
 * The Prometheus text exposition format (0.0.4), written by hand for the chain metrics:
 * they are rendered once per snapshot and may run to hundreds of thousands of series,
 * where a prom-client registry would rebuild them on every scrape.
 */

/** Escapes a label value: backslash, double quote and newline. */
export function escapeLabelValue(value: string): string {
  return /[\\"\n]/.test(value) ? value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n') : value;
}

/** `{a="1",b="2"}` from already-escaped pairs; '' when there are none. */
export function labelSet(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  return `{${pairs.map(([name, value]) => `${name}="${escapeLabelValue(value)}"`).join(',')}}`;
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/** The `# HELP` and `# TYPE` lines that open a family. */
export function familyHeader(family: MetricFamily): string {
  return `# HELP ${family.name} ${family.help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n# TYPE ${family.name} ${family.type}\n`;
}

/**
 * Accumulates samples per family and writes each family contiguously with its HELP and
 * TYPE lines. Families without samples are left out entirely.
 */
export function createExposition(): {
  add(family: MetricFamily, labels: string, value: string): void;
  text(): string;
} {
  const samples = new Map<MetricFamily, string[]>();
  return {
    add(family, labels, value) {
      let lines = samples.get(family);
      if (!lines) {
        lines = [];
        samples.set(family, lines);
      }
      lines.push(`${family.name}${labels} ${value}`);
    },
    text() {
      let out = '';
      for (const [family, lines] of samples) {
        out += `${familyHeader(family)}${lines.join('\n')}\n`;
      }
      return out;
    },
  };
}
