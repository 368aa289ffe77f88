// Cluster mode at scale: `replicas` real tonwatch processes sharing a real redis-server,
// against the simulator process on one API key at `rps` (and an 8 KiB request line, as
// toncenter's), the watchlist users write. Measures what the cluster costs and gives:
// the first full cycle against the shared budget, RSS per replica, Redis memory and
// commands, walletStates(100) on every replica against a bare server sending the same
// bytes (wrk), and the time to recover a replica killed with SIGKILL.
import { spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TextDecoder } from 'node:util';
import { Redis } from 'ioredis';
import { realisticWatchlist } from './fixtures.mjs';
import { sameHeaders, startBare } from './http.mjs';
import { benchDir, cpuSecondsOf, exited, freePort, getWhenUp, listenPort, median, rssOf, spawnTonwatch, wrk } from './support.mjs';

/** The sum of a metric's samples whose line has every one of `pairs`. */
function sum(text, name, pairs = []) {
  return text
    .split('\n')
    .filter((l) => (l.startsWith(`${name}{`) || l.startsWith(`${name} `)) && pairs.every((pair) => l.includes(pair)))
    .reduce((total, l) => total + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Progress on stderr: a run at a million wallets takes minutes. */
const progress = (text) => process.stderr.write(`  cluster bench ${new Date().toISOString().slice(11, 19)}: ${text}\n`);

async function until(what, deadlineMs, probe) {
  progress(`waiting for ${what}`);
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    // Not faster: every probe scrapes each replica's /metrics, as a Prometheus at a 3 s interval would.
    await sleep(3_000);
  }
}

/** INFO of a section as an object. */
async function info(redis, section) {
  const text = await redis.info(section);
  return Object.fromEntries(
    text
      .split('\r\n')
      .filter((l) => l.includes(':'))
      .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1)]),
  );
}

/**
 * What one steady cycle writes to Redis (nothing changes on the simulator: --block-ms 0):
 * the bytes of the wallet records and markers in the stream from the start of the next
 * cycle of every replica until each has finished it, against a full share (the hash's
 * fields, as a sample of a thousand of them says they weigh).
 */
async function steadyCycle(redis, replicas, cycles) {
  const stream = 'tonwatch:{bench}:updates';
  const before = await cycles();
  const from = (await redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  await until('a steady cycle on every replica', 10 * 60_000, async () => {
    const now = await cycles();
    return replicas.every((m) => (now.get(m.id) ?? 0) > (before.get(m.id) ?? 0));
  });
  // Markers leave once the cycle is over: let them.
  await sleep(2_000);
  let records = 0;
  let recordBytes = 0;
  let markerBytes = 0;
  for (let start = `(${from}`; ;) {
    const entries = await redis.xrange(stream, start, '+', 'COUNT', 500);
    if (entries.length === 0) break;
    for (const [id, flat] of entries) {
      start = `(${id}`;
      const fields = new Map();
      for (let i = 0; i + 1 < flat.length; i += 2) fields.set(flat[i], flat[i + 1]);
      if (fields.get('k') !== 'wallets') continue;
      if (fields.has('d')) {
        recordBytes += Buffer.byteLength(fields.get('d'));
        records += fields.get('d').split('\n').length;
      }
      if (fields.has('m')) markerBytes += Buffer.byteLength(fields.get('m'));
    }
  }
  const hash = 'tonwatch:{bench}:part:wallets';
  const fields = await redis.hlen(hash);
  const sample = await redis.call('HRANDFIELD', hash, '1000', 'WITHVALUES');
  let sampleBytes = 0;
  for (let i = 1; i < sample.length; i += 2) sampleBytes += Buffer.byteLength(sample[i]);
  const fullShare = (fields * sampleBytes) / Math.max(1, sample.length / 2);
  // Written twice, to the stream and the hash (records) or the marker hash (markers).
  return { records, recordBytes, markerBytes, written: 2 * (recordBytes + markerBytes), fullShare: 2 * fullShare };
}

/** walletStates runs of each replica, each after a run of the bare server. */
const PAIRS = 3;
/** The wallet schedule of the replicas: every two minutes. */
const CYCLE_SECONDS = 120;

export async function clusterAtScale(wallets, { replicas = 4, rps = 200, ttlSeconds = 10, seconds = 5 } = {}) {
  const dir = benchDir('tonwatch-bench-cluster-');
  progress(`folder ${dir}`);
  const redisPort = await freePort();
  const redisServer = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const redis = new Redis(redisPort, '127.0.0.1', { retryStrategy: (n) => (n > 50 ? null : 100) });
  // Refused until redis-server listens: retried.
  redis.on('error', () => undefined);
  await redis.ping();
  const simPort = await freePort();
  const sim = await spawnTonwatch(
    ['simulate', '--port', String(simPort), '--accounts', String(wallets), '--seed', '5', '--max-url-bytes', '8192', '--block-ms', '0', '--rps', String(rps)],
    /listening/,
  );
  sim.stdout.resume();
  const simUrl = `http://127.0.0.1:${simPort}`;
  const raws = (await (await fetch(`${simUrl}/_sim/accounts`)).json()).map((a) => a.raw);
  const lists = realisticWatchlist(raws);
  writeFileSync(join(dir, 'watch.txt'), lists.file);
  const members = [];
  const startReplica = async (id) => {
    const port = await listenPort();
    const config = join(dir, `${id}.yml`);
    writeFileSync(
      config,
      [
        `listen: { host: 127.0.0.1, port: ${port} }`,
        `upstreams: [ { name: sim, url: "${simUrl}", rps: ${rps}, timeoutMs: 10000 } ]`,
        // A cycle at the join, then every two minutes: the steady cycles whose writes are measured.
        `schedule: { queueSizes: "*/5 * * * * *", wallets: "0 */${CYCLE_SECONDS / 60} * * * *" }`,
        'walletBatchSize: 1000',
        'watchlistFiles: [watch.txt]',
        `snapshot: { file: ${id}-snapshot.json, maxAgeSeconds: 86400 }`,
        `cluster: { redis: "redis://127.0.0.1:${redisPort}", name: bench, memberTtlSeconds: ${ttlSeconds}, member: ${id} }`,
        'log: { level: info }',
        ...lists.yaml,
        '',
      ].join('\n'),
    );
    const child = await spawnTonwatch(['--config', config]);
    // Each replica's log in the bench folder (removed at exit unless BENCH_KEEP is set).
    child.stdout.pipe(createWriteStream(join(dir, `${id}.log`)));
    child.once('exit', (code, signal) => progress(`replica ${id} exited (${code ?? signal})`));
    const member = { id, port, url: `http://127.0.0.1:${port}`, child };
    members.push(member);
    return member;
  };
  const live = () => members.filter((m) => m.child.exitCode === null && m.child.signalCode === null);
  /**
   * A replica's own series (tonwatch_*), read from its /metrics as it streams in: at a
   * million wallets the whole text is past the longest string V8 makes (512 MiB), and
   * holding it would make this process, not the replicas, the measure.
   */
  const kept = (line) => line.startsWith('tonwatch_') || line.startsWith('nodejs_heap_size_') || line.startsWith('nodejs_external_memory_bytes');
  const metrics = async (m) => {
    const response = await fetch(`${m.url}/metrics`);
    const decoder = new TextDecoder();
    const own = [];
    let rest = '';
    for await (const chunk of response.body) {
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) if (kept(line)) own.push(line);
    }
    if (kept(rest)) own.push(rest);
    return own.join('\n');
  };
  const sample = raws.filter((_, i) => i % Math.max(1, Math.floor(wallets / 1000)) === 0).slice(0, 1000);
  const servesSample = async (m) => {
    const json = await (await fetch(`${m.url}/api/v3/walletStates?${sample.map((a) => `address=${a}`).join('&')}`)).json();
    return json.wallets?.length === sample.length;
  };
  /** Every live replica has polled its share once since `since` polls, serves the sample, and the shares add up to the watchlist. */
  const settled = async (cyclesBefore) => {
    let owned = 0;
    for (const m of live()) {
      const text = await metrics(m);
      owned += sum(text, 'tonwatch_cluster_owned_wallets');
      if (sum(text, 'tonwatch_poll_duration_seconds_count', ['query="wallets"']) <= (cyclesBefore.get(m.id) ?? 0)) return false;
      if (!(await servesSample(m))) return false;
    }
    return owned === wallets;
  };
  const cycles = async () => {
    const counts = new Map();
    for (const m of live()) counts.set(m.id, sum(await metrics(m), 'tonwatch_poll_duration_seconds_count', ['query="wallets"']));
    return counts;
  };

  try {
    const commandsBefore = Number((await info(redis, 'stats')).total_commands_processed);
    const started = Date.now();
    for (let i = 1; i <= replicas; i += 1) await startReplica(`r${i}`);
    await until('every replica up', 120_000, async () => {
      for (const m of live()) if ((await fetch(`${m.url}/healthz`)).status !== 200) return false;
      return true;
    });
    await until('the first cycle of the cluster', 30 * 60_000, () => settled(new Map()));
    const firstCycleSeconds = (Date.now() - started) / 1000;
    // Where the CPU went, from the start through the first cycle: on 2 cores, the limit.
    const cpu = {
      replicas: live().map((m) => cpuSecondsOf(m.child.pid)),
      simulator: cpuSecondsOf(sim.pid),
      redis: cpuSecondsOf(redisServer.pid),
      bench: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
      seconds: firstCycleSeconds,
    };
    const memberChanges = live().map((m) => (readFileSync(join(dir, `${m.id}.log`), 'utf8').match(/"msg":"cluster members"/g) ?? []).length - 1);
    // One replica at a time: at a million wallets each body is tens of megabytes, and four
    // read together by a process short of CPU outlast listen.sendTimeoutSeconds.
    const texts = [];
    for (const m of live()) texts.push(await metrics(m));
    const cycle = {
      seconds: firstCycleSeconds,
      pollSeconds: Math.max(...texts.map((t) => sum(t, 'tonwatch_poll_duration_seconds_sum', ['query="wallets"']))),
      calls: texts.reduce((total, t) => total + sum(t, 'tonwatch_upstream_requests_total', ['query="wallets"']), 0),
      refused: texts.reduce((total, t) => total + sum(t, 'tonwatch_upstream_requests_total', ['query="wallets"', 'code="414"']), 0),
      owned: texts.map((t) => sum(t, 'tonwatch_cluster_owned_wallets')),
    };
    // The shared snapshot has reached every replica.
    await sleep(3_000);
    const load = await (await fetch(`${simUrl}/_sim/load?summary=1`)).json();
    const simState = await (await fetch(`${simUrl}/_sim/state`)).json();
    const memory = await info(redis, 'memory');
    const commands = Number((await info(redis, 'stats')).total_commands_processed) - commandsBefore;
    const keys = {};
    for (const [name, key] of [
      ['wallets', 'part:wallets'],
      ['updates', 'updates'],
    ])
      keys[name] = Number(await redis.call('MEMORY', 'USAGE', `tonwatch:{bench}:${key}`, 'SAMPLES', '1000'));
    const rss = live().map((m) => ({ id: m.id, rss: rssOf(m.child.pid) }));
    // Where it is: the V8 heap in use and reserved, and the memory outside it (buffers: the gzip members), as each replica says.
    for (const r of rss) {
      const text = await metrics(live().find((m) => m.id === r.id));
      Object.assign(r, {
        heapUsed: sum(text, 'nodejs_heap_size_used_bytes'),
        heapTotal: sum(text, 'nodejs_heap_size_total_bytes'),
        external: sum(text, 'nodejs_external_memory_bytes'),
      });
    }
    const steady = await steadyCycle(redis, live(), cycles);
    progress(`first cycle ${firstCycleSeconds} s, member changes ${memberChanges}, RSS ${rss.map((r) => r.rss)}, steady ${JSON.stringify(steady)}`);

    // walletStates of 100 watched addresses on every replica, against a bare server sending the same bytes.
    const path = `/api/v3/walletStates?${raws
      .slice(0, 100)
      .map((a) => `address=${a}`)
      .join('&')}`;
    const answer = await getWhenUp(`${live()[0].url}${path}`);
    const bare = await startBare([{ path, acceptEncoding: undefined, headers: sameHeaders(answer.headers), body: answer.body }]);
    const served = [];
    try {
      // Each replica against bare runs alternated with its own (PAIRS of each): the machine is
      // shared and noisy, a single run of either moves by a third from one to the next.
      for (const m of live()) {
        // What the other processes took of the 2 cores during each run: the ratio means little if they differ.
        const others = [
          ...live()
            .filter((o) => o !== m)
            .map((o) => [o.id, o.child.pid]),
          ['simulator', sim.pid],
          ['redis', redisServer.pid],
        ];
        await wrk(`${bare.url}${path}`, { serverPid: bare.child.pid, seconds: 1 });
        await wrk(`${m.url}${path}`, { serverPid: m.child.pid, seconds: 1 });
        const pairs = [];
        for (let i = 0; i < PAIRS; i += 1) {
          const bareRun = await busyAround(others, () => wrk(`${bare.url}${path}`, { serverPid: bare.child.pid, seconds }));
          const run = await busyAround(others, () => wrk(`${m.url}${path}`, { serverPid: m.child.pid, seconds }));
          pairs.push({ run, bareRun, ratio: run.rps / bareRun.rps });
        }
        const mid = (pick) => median(pairs.map(pick));
        served.push({
          id: m.id,
          rps: mid((p) => p.run.rps),
          p99: mid((p) => p.run.p99),
          bare: mid((p) => p.bareRun.rps),
          bareP99: mid((p) => p.bareRun.p99),
          ratio: mid((p) => p.ratio),
          ratios: pairs.map((p) => p.ratio),
          wrkCores: mid((p) => p.run.wrkCpuShare),
          bareWrkCores: mid((p) => p.bareRun.wrkCpuShare),
          othersCores: mid((p) => p.run.othersCores),
          othersCoresBare: mid((p) => p.bareRun.othersCores),
          othersBusy: Object.fromEntries(others.map(([name]) => [name, mid((p) => p.run.othersBusy[name])])),
        });
      }
    } finally {
      bare.child.kill('SIGTERM');
    }

    progress(`walletStates(100): ${JSON.stringify(served)}`);
    // A replica killed: its share moves to the others and is polled by them.
    const victim = live().find((m) => m.id !== 'r1') ?? live()[0];
    const before = await cycles();
    before.delete(victim.id);
    progress(`killing ${victim.id} (pid ${victim.child.pid}) with SIGKILL`);
    victim.child.kill('SIGKILL');
    const killedAt = Date.now();
    await until('the others owning every wallet', 10 * 60_000, async () => {
      let owned = 0;
      for (const m of live()) owned += sum(await metrics(m), 'tonwatch_cluster_owned_wallets');
      return owned === wallets;
    });
    await until('the dead replica share polled', 30 * 60_000, () => settled(before));
    // Read from the replicas themselves (this process's probes of megabytes of /metrics
    // lag): when each logged the member list without the victim, and when each finished
    // polling its new share (tonwatch_last_success_timestamp_seconds).
    const survivors = live();
    const movedAt = survivors.map((m) => {
      const lines = readFileSync(join(dir, `${m.id}.log`), 'utf8').split('\n');
      const line = lines
        .map((l) => (l.includes('"msg":"cluster members"') ? JSON.parse(l) : null))
        .find((l) => l && l.time > killedAt && !l.members.includes(victim.id));
      return line?.time ?? Number.NaN;
    });
    // When each finished polling what it took over ("polled the wallets taken over": the last
    // one, as a takeover can end in a run after the cycle it began in); a replica that had no
    // tick to compare with polled its whole share: its last success.
    const polledAt = [];
    for (const m of survivors) {
      const taken = readFileSync(join(dir, `${m.id}.log`), 'utf8')
        .split('\n')
        .map((l) => (l.includes('"msg":"polled the wallets taken over"') ? JSON.parse(l) : null))
        .filter((l) => l && l.time > killedAt && l.ok)
        .at(-1);
      polledAt.push(taken?.time ?? sum(await metrics(m), 'tonwatch_last_success_timestamp_seconds', ['query="wallets"']) * 1000);
    }
    const movedSeconds = (Math.max(...movedAt) - killedAt) / 1000;
    const recoveredSeconds = (Math.max(...polledAt) - killedAt) / 1000;
    return {
      wallets,
      replicas,
      rps,
      ttlSeconds,
      cycleSeconds: CYCLE_SECONDS,
      cycle,
      load,
      rateLimited: simState.stats['429'] ?? 0,
      redis: { usedMemory: Number(memory.used_memory), rss: Number(memory.used_memory_rss), keys, commands, commandsPerWallet: commands / wallets },
      rss,
      served,
      recovery: { movedSeconds, recoveredSeconds },
      cpu,
      memberChanges,
      steady,
    };
  } finally {
    // Stopped as users stop them (a replica's --cpu-prof, given by BENCH_NODE_FLAGS, is written at exit), killed past 30 s.
    for (const m of members) m.child.kill('SIGTERM');
    const killer = setTimeout(() => members.forEach((m) => m.child.kill('SIGKILL')), 30_000);
    await Promise.all(members.map((m) => exited(m.child)));
    clearTimeout(killer);
    sim.kill('SIGTERM');
    await exited(sim);
    redis.disconnect();
    redisServer.kill('SIGKILL');
  }
}

/** `measure()`'s result with the cores each of `processes` ([name, pid]) used meanwhile (CPU seconds over wall seconds), and their sum. */
async function busyAround(processes, measure) {
  const cpuFrom = processes.map(([, pid]) => cpuSecondsOf(pid));
  const from = performance.now();
  const result = await measure();
  const wall = (performance.now() - from) / 1000;
  const cores = Object.fromEntries(processes.map(([name, pid], i) => [name, (cpuSecondsOf(pid) - cpuFrom[i]) / wall]));
  return { ...result, othersCores: Object.values(cores).reduce((a, b) => a + b, 0), othersBusy: cores };
}
