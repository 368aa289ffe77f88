/**
 * Files shipped beside the code, found from this module's own URL (dist/assets.js, compiled
 * by tsc from src/): the one place that knows where they are.
 */

/** The package manifest (one level above src/ and dist/). */
export const PACKAGE_JSON = new URL('../../package.json', import.meta.url);

/** The compose stack's demo config, shipped with the package. */
export const DEMO_CONFIG = new URL('../../dashboards/tonwatch/demo.yml', import.meta.url);

/** The status page's browser modules, compiled by tsc from src/features/status-page/. */
export const STATUS_SCRIPTS = {
  client: new URL('../features/status-page/client.js', import.meta.url),
  render: new URL('../features/status-page/render.js', import.meta.url),
} as const;
