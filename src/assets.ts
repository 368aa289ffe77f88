/**
 * Files shipped beside the code, found from this module's own URL. It sits at the root of
 * dist/ both as compiled by tsc (dist/assets.js) and inside the bundle that `tonwatch` runs
 * (dist/tonwatch.js and its chunks, all at the root of dist/), so the same relative paths
 * hold for both. A module in a subfolder must not resolve these itself: bundled, its
 * code no longer lives in that subfolder.
 */

/** The package manifest (one level above src/ and dist/). */
export const PACKAGE_JSON = new URL('../package.json', import.meta.url);

/** The compose stack's demo config, shipped with the package. */
export const DEMO_CONFIG = new URL('../dashboards/tonwatch/demo.yml', import.meta.url);

/** The status page's browser modules, compiled by tsc from src/status/ into dist/status/. */
export const STATUS_SCRIPTS = {
  client: new URL('./status/client.js', import.meta.url),
  render: new URL('./status/render.js', import.meta.url),
} as const;
