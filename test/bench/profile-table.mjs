// Self time per function of a V8 CPU profile, as the benchmark documents show it.
import { readFileSync } from 'node:fs';

/**
 * Prints the TOP (env, default 25) functions by self time, in ms (or, with `shares`, as a
 * share of the time not idle); with `untilMs`, only the samples of the first `untilMs` of the profile.
 */
export function printSelfTimes(file, { untilMs = Infinity, shares = false } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const selfMicros = new Map();
  let at = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at <= untilMs * 1000) selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
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
  if (!shares) console.log(`${(total / 1000).toFixed(0)} ms sampled, ${(idle / 1000).toFixed(0)} ms idle`);
  console.log(`| function | ${shares ? 'share' : 'ms'} |`);
  console.log('|---|---|');
  for (const [name, micros] of [...byFunction]
    .filter(([name]) => name !== '(idle)')
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(process.env.TOP ?? 25))) {
    console.log(`| \`${name}\` | ${shares ? `${((100 * micros) / (total - idle)).toFixed(1)} %` : (micros / 1000).toFixed(1)} |`);
  }
}
