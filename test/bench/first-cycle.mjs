// One poll-processing cycle in a process that has run none before (nothing compiled,
// the heap not grown yet), as a daemon's very first cycle after a start without a
// snapshot. Prints the CPU seconds it took as JSON. Spawned by run.mjs.
import { measure, processingWorkload } from './processing.mjs';

const total = Number(process.argv[2] ?? 100_000);
const { answers, newRenderer, cycle } = processingWorkload(total, 1);
// Building the bodies and the watchlist (as loading the watchlist would) is not measured.
const seconds = await measure(() => cycle(answers[0], undefined, newRenderer()));
process.stdout.write(`${JSON.stringify({ seconds })}\n`);
