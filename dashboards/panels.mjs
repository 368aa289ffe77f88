// The Grafana building blocks every dashboard of dashboards/generate.mjs is made of.

export const SCHEMA_VERSION = 39;
export const ds = { type: 'prometheus', uid: '${datasource}' };
export const sel = (extra = '') => `{job=~"$job",instance=~"$instance"${extra ? `,${extra}` : ''}}`;

export const templating = (jobSelector) => ({
  list: [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', current: {}, hide: 0, refresh: 1 },
    {
      name: 'job',
      label: 'Job',
      type: 'query',
      datasource: ds,
      query: { query: `label_values(tonwatch_build_info${jobSelector ? `{${jobSelector}}` : ''}, job)`, refId: 'job' },
      definition: `label_values(tonwatch_build_info${jobSelector ? `{${jobSelector}}` : ''}, job)`,
      includeAll: true,
      multi: true,
      allValue: '.+',
      current: {},
      refresh: 2,
      hide: 0,
      sort: 1,
    },
    {
      name: 'instance',
      label: 'Instance',
      type: 'query',
      datasource: ds,
      query: { query: 'label_values(tonwatch_build_info{job=~"$job"}, instance)', refId: 'instance' },
      definition: 'label_values(tonwatch_build_info{job=~"$job"}, instance)',
      includeAll: true,
      multi: true,
      allValue: '.+',
      current: {},
      refresh: 2,
      hide: 0,
      sort: 1,
    },
  ],
});

let nextId = 1;
/** Panel ids count from 1 in each dashboard. */
export const resetIds = () => {
  nextId = 1;
};
export function panel(type, title, description, targets, gridPos, extra = {}) {
  return {
    id: nextId++,
    type,
    title,
    description,
    datasource: ds,
    gridPos,
    targets: targets.map(([expr, legendFormat, more = {}], i) => ({ refId: String.fromCharCode(65 + i), datasource: ds, expr, legendFormat, ...more })),
    ...extra,
  };
}

/** A row heading at `y`: the panels below it, up to the next row, are its own. */
export function row(title, y) {
  return { id: nextId++, type: 'row', title, collapsed: false, gridPos: { x: 0, y, w: 24, h: 1 }, panels: [] };
}

export const thresholds = (steps) => ({ mode: 'absolute', steps: steps.map(([value, color]) => ({ value, color })) });
export const timeseries = (unit, more = {}) => ({
  fieldConfig: { defaults: { unit, ...more }, overrides: [] },
  options: { legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] }, tooltip: { mode: 'multi', sort: 'desc' } },
});
/** A time series whose `limit` series is drawn as a red dashed line. */
export const timeseriesWithLimit = (unit) => ({
  ...timeseries(unit),
  fieldConfig: {
    defaults: { unit },
    overrides: [
      {
        matcher: { id: 'byName', options: 'limit' },
        properties: [
          { id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } },
          { id: 'color', value: { mode: 'fixed', fixedColor: 'red' } },
        ],
      },
    ],
  },
});
export const stat = (unit, steps) => ({
  fieldConfig: { defaults: { unit, thresholds: thresholds(steps), color: { mode: 'thresholds' } }, overrides: [] },
  options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'background', graphMode: 'area', textMode: 'auto' },
});

export function dashboard(uid, title, description, tags, panels, variables) {
  return {
    uid,
    title,
    description,
    tags,
    schemaVersion: SCHEMA_VERSION,
    version: 1,
    editable: true,
    graphTooltip: 1,
    time: { from: 'now-1h', to: 'now' },
    refresh: '30s',
    timezone: 'browser',
    templating: variables,
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    links: [],
    panels,
  };
}
