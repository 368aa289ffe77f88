import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

/** PromQL words that look like metric names but are not. */
const PROMQL_WORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'count',
  'stddev',
  'stdvar',
  'topk',
  'bottomk',
  'quantile',
  'count_values',
  'group',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'rate',
  'irate',
  'increase',
  'delta',
  'idelta',
  'deriv',
  'predict_linear',
  'changes',
  'resets',
  'histogram_quantile',
  'abs',
  'absent',
  'absent_over_time',
  'ceil',
  'floor',
  'round',
  'clamp',
  'clamp_min',
  'clamp_max',
  'vector',
  'scalar',
  'time',
  'timestamp',
  'label_replace',
  'label_join',
  'sort',
  'sort_desc',
  'max_over_time',
  'min_over_time',
  'avg_over_time',
  'sum_over_time',
  'count_over_time',
  'last_over_time',
  'quantile_over_time',
  'e',
  'inf',
  'nan',
]);

/** Metric names an expression selects (labels, strings, durations and functions removed). */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  const names = stripped.match(/[a-zA-Z_:][a-zA-Z0-9_:]*/g) ?? [];
  return [...new Set(names.filter((n) => !PROMQL_WORDS.has(n.toLowerCase())))];
}

export interface RuleFile {
  groups: {
    name: string;
    rules: { record?: string; alert?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }[];
  }[];
}

export const RULES_PATH = new URL('../../dashboards/prometheus/rules.yml', import.meta.url);

export function loadRules(): RuleFile {
  return parseYaml(readFileSync(RULES_PATH, 'utf8')) as RuleFile;
}

export interface DashboardExpression {
  readonly dashboard: string;
  readonly panel: string;
  readonly description: string;
  readonly expr: string;
}

interface PanelLike {
  title?: string;
  description?: string;
  targets?: { expr?: string }[];
  panels?: PanelLike[];
}

/** Every PromQL expression of a dashboard: panel targets and variable queries. */
export function dashboardExpressions(
  name: string,
  dashboard: { panels: PanelLike[]; templating: { list: { name: string; query?: unknown }[] } },
): DashboardExpression[] {
  const out: DashboardExpression[] = [];
  const walk = (panels: PanelLike[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) {
        if (target.expr) out.push({ dashboard: name, panel: panel.title ?? '', description: panel.description ?? '', expr: target.expr });
      }
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    const query = (variable.query as { query?: string } | undefined)?.query;
    const inner = query ? /^label_values\((.+),\s*\w+\)$/.exec(query)?.[1] : undefined;
    if (inner) out.push({ dashboard: name, panel: `variable ${variable.name}`, description: '', expr: inner });
  }
  return out;
}

/** Grafana variables → values Prometheus accepts as-is. */
export function substituteVariables(expr: string, rateInterval: string): string {
  return expr
    .replace(/\$__rate_interval|\$\{__rate_interval\}/g, rateInterval)
    .replace(/\$__interval|\$\{__interval\}/g, rateInterval)
    .replace(/\$\{?(job|instance|wallet|validator)\}?/g, '.+');
}

/** What the description of a dashboard panel about the cluster says: a single process has no data for it (the cluster test shows it has). */
export const SINGLE_PROCESS_NOTE = 'Empty for a single process';
