// `npm run bench:profile [PATH] [gzip]`: a CPU profile of the real tonwatch process serving
// PATH (default the v2 endpoint; with `gzip`, asking for a gzip body) under wrk's load, on a persisted snapshot of 10,000 wallets;
// prints the functions with the most self time, as the README's profile tables show them.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchDir, exited, freePort, getWhenUp, MAIN, NODE_FLAGS, persistedDataDir, wrk } from './support.mjs';

const path = process.argv[2] ?? '/api/v2/getOutMsgQueueSizes';
const headers = process.argv[3] === 'gzip' ? { 'accept-encoding': 'gzip' } : {};
const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const port = await freePort();
const data = await persistedDataDir(10_000, port);
const profiles = benchDir('tonwatch-profile-');
const daemon = spawn(process.execPath, [...NODE_FLAGS, '--cpu-prof', '--cpu-prof-dir', profiles, MAIN, '--config', data.config], { stdio: 'ignore' });
const url = `http://127.0.0.1:${port}${path}`;
while ((await getWhenUp(url, headers)).status !== 200) await new Promise((r) => setTimeout(r, 20));
const load = await wrk(url, { serverPid: daemon.pid, seconds, headers });
daemon.kill('SIGTERM');
await exited(daemon);

const file = readdirSync(profiles).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(join(profiles, file), 'utf8'));
// Self time per function: samples are node ids, timeDeltas the µs before each sample.
const selfMicros = new Map();
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const byFunction = new Map();
let total = 0;
for (const node of profile.nodes) {
  const micros = selfMicros.get(node.id) ?? 0;
  total += micros;
  const { functionName, url: script, lineNumber } = node.callFrame;
  const where = script ? `${script.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*\/dist\//, 'dist/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}
const idle = byFunction.get('(idle)') ?? 0;
console.log(`${path}: ${Math.round(load.rps)} req/s under wrk for ${seconds} s; self time, idle excluded:`);
console.log('| function | share |');
console.log('|---|---|');
for (const [name, micros] of [...byFunction]
  .filter(([name]) => name !== '(idle)')
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(process.env.TOP ?? 12))) {
  console.log(`| \`${name}\` | ${((100 * micros) / (total - idle)).toFixed(1)} % |`);
}
