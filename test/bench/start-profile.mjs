// `node test/bench/start-profile.mjs [WALLETS] [raw]`: a CPU profile of the real tonwatch
// process from spawn to its first v2 200 on a persisted snapshot (upstream down), the
// watchlist as users write it (or raw); prints the functions with the most self time.
import { spawn } from 'node:child_process';
import { copyFileSync, readdirSync } from 'node:fs';
import { benchDir, exited, freePort, getWhenUp, MAIN, NODE_FLAGS, persistedDataDir } from './support.mjs';
import { printSelfTimes } from './profile-table.mjs';

const wallets = Number(process.argv[2] ?? 10_000);
const port = await freePort();
const data = await persistedDataDir(wallets, port, { watchlist: process.argv[3] === 'raw' ? 'raw' : 'realistic' });
const profiles = benchDir('tonwatch-profile-');
const started = process.hrtime.bigint();
const daemon = spawn(process.execPath, [...NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', profiles, MAIN, '--config', data.config], { stdio: 'ignore' });
const url = process.env.PROFILE_V3
  ? `http://127.0.0.1:${port}/api/v3/walletStates?address=${encodeURIComponent(data.addresses(1)[0])}`
  : `http://127.0.0.1:${port}/api/v2/getOutMsgQueueSizes`;
while ((await getWhenUp(url)).status !== 200) await new Promise((r) => setTimeout(r, 2));
const ms = Number(process.hrtime.bigint() - started) / 1e6;
await new Promise((r) => setTimeout(r, 10));
daemon.kill('SIGTERM');
await exited(daemon);
console.log(`first v2 200 after ${ms.toFixed(0)} ms (the profile runs on to the exit)`);
const file = `${profiles}/${readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'))}`;
if (process.env.KEEP_PROFILE) copyFileSync(file, process.env.KEEP_PROFILE);
printSelfTimes(file, { untilMs: ms });
