// `npm run bench:profile [PATH] [gzip]`: a CPU profile of the real tonwatch process serving
// PATH (default the v2 endpoint; with `gzip`, asking for a gzip body) under wrk's load, on a persisted snapshot of 10,000 wallets;
// prints the functions with the most self time, as the README's profile tables show them.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { printSelfTimes } from './profile-table.mjs';
import { benchDir, exited, freePort, MAIN, NODE_FLAGS, persistedDataDir, untilReady, wrk } from './support.mjs';

const path = process.argv[2] ?? '/api/v2/getOutMsgQueueSizes';
const headers = process.argv[3] === 'gzip' ? { 'accept-encoding': 'gzip' } : {};
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const port = await freePort();
const data = await persistedDataDir(10_000, port);
const profiles = benchDir('tonwatch-profile-');
const daemon = spawn(process.execPath, [...NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', profiles, MAIN, '--config', data.config], { stdio: 'ignore' });
const url = `http://127.0.0.1:${port}${path}`;
await untilReady(`http://127.0.0.1:${port}`);
const load = await wrk(url, { serverPid: daemon.pid, seconds, headers });
daemon.kill('SIGTERM');
await exited(daemon);

const file = readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'));
console.log(`${path}: ${Math.round(load.rps)} req/s under wrk for ${seconds} s; self time, idle excluded:`);
printSelfTimes(join(profiles, file), { shares: true });
