/** The status page's stylesheet, served as /assets/status.css (the page allows no inline styles). */
export const STATUS_CSS =
  `:root { color-scheme: light; --ok: #2e7d32; --warning: #a15c00; --critical: #c62828; --ink: #1b1b1b; --muted: #595959; ` +
  `--line: #d0d0d0; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header, main, footer { max-width: 1100px; margin: 0 auto; padding: 0 16px; }
header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px; border-bottom: 1px solid var(--line); }
h1 { font-size: 1.4rem; margin: 12px 0; }
h2 { font-size: 1.15rem; margin: 24px 0 8px; }
a { color: #0b57d0; }
a:focus-visible, button:focus-visible, input:focus-visible { outline: 3px solid #0b57d0; outline-offset: 2px; }
table { border-collapse: collapse; width: 100%; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; }
svg.bar { width: 100%; min-width: 120px; height: 16px; display: block; }
svg.bar .track { fill: #eeeeee; }
.fill.level-ok { fill: var(--ok); }
.fill.level-warning { fill: var(--warning); }
.fill.level-critical { fill: var(--critical); }
svg .threshold { stroke: #555; stroke-width: 2; }
span.level-warning, td.level-warning { color: var(--warning); font-weight: 600; }
span.level-critical { color: var(--critical); font-weight: 700; }
span.level-ok { color: var(--ok); }
svg.chart { width: 100%; height: auto; max-height: 260px; background: #fafafa; border: 1px solid var(--line); }
svg.chart polyline { fill: none; stroke-width: 2; vector-effect: non-scaling-stroke; }
svg.chart .limit { stroke: var(--critical); stroke-dasharray: 6 6; stroke-width: 1.5; vector-effect: non-scaling-stroke; }
.series-0 { stroke: #1565c0; color: #1565c0; } .series-1 { stroke: #6a1b9a; color: #6a1b9a; } .series-2 { stroke: #00838f; color: #00838f; }
.series-3 { stroke: #ef6c00; color: #ef6c00; } .series-4 { stroke: #2e7d32; color: #2e7d32; } .series-5 { stroke: #ad1457; color: #ad1457; }
.series-6 { stroke: #4e342e; color: #4e342e; } .series-7 { stroke: #37474f; color: #37474f; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 16px; }
tr.attention td { background: #fff4e5; }
td.status-frozen, td.status-unknown, td.status-nonexist { color: var(--critical); }
td.below { color: var(--critical); font-weight: 600; }
th a { color: inherit; text-decoration: none; } th a:hover, th a:focus { text-decoration: underline; }
form.search { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0; }
form.search input { flex: 1 1 260px; font: inherit; padding: 6px 8px; border: 1px solid #767676; border-radius: 4px; }
form.search button { font: inherit; padding: 6px 14px; border: 1px solid #0b57d0; background: #0b57d0; color: #fff; border-radius: 4px; cursor: pointer; }
nav.pages { margin: 8px 0; }
code { font-size: 0.92em; word-break: break-all; }
footer { color: var(--muted); border-top: 1px solid var(--line); margin-top: 24px; padding-bottom: 24px; }
@media (max-width: 600px) { body { font-size: 14px; } th, td { padding: 4px; } }
`;
