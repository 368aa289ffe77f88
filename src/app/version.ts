import { readFileSync } from 'node:fs';
import { PACKAGE_JSON } from './assets.js';

/** The package version, read once from package.json. */
export const VERSION: string = (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;
