// `--profile`: one round against each side under --cpu-prof, summarised by layer (profile.mjs).
import { mixSequence } from './mix.mjs';
import { stop } from './processes.mjs';
import { summarizeProfile } from './profile.mjs';
import { out, opts, seconds, warmup, log } from './context.mjs';
import { measure, pidsOf } from './rounds.mjs';

/** Profiles one round of `next` on each side (after a warm-up), then stops both. */
export async function profileSides(sides, makeNext, mysqld, results) {
  // V8 samples its main thread by wall clock, so a layer's time per request includes the
  // moments the thread stood preempted in it: mostly right after a socket write has woken
  // the database or the load generator on this 2-core machine.
  results.profile = {};
  const nowUs = () => Number(process.hrtime.bigint() / 1000n);
  for (const name of ['service', 'baseline']) {
    await measure(sides[name], makeNext(1), warmup, pidsOf(sides[name], mysqld));
    const fromUs = nowUs();
    const r = await measure(sides[name], makeNext(2), seconds, pidsOf(sides[name], mysqld));
    results.profile[name] = { round: r, window: { fromUs, toUs: nowUs() } };
    log(`profiled ${name}: ${r.rps} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, CPU ms per request ${JSON.stringify(r.cpuMsPerRequest)}`);
  }
  await stop(sides.service.child);
  await stop(sides.baseline.child);
  for (const name of ['service', 'baseline']) {
    const file = `${name}-mix.cpuprofile`;
    const { round, window } = results.profile[name];
    const summary = summarizeProfile(new URL(file, out).pathname, 25, window);
    const requests = round.rps * seconds;
    const perRequestUs = Object.fromEntries(summary.byLayer.filter((l) => l.name !== '(idle)').map((l) => [l.name, Math.round((l.ms * 1000) / requests)]));
    results.profile[name] = { round, window, file: `scripts/bench/out/${file}`, perRequestUs, ...summary };
  }
}

export const profiled = (side) => (opts.profile ? ['--cpu-prof', `--cpu-prof-dir=${out.pathname}`, `--cpu-prof-name=${side}-mix.cpuprofile`] : []);
export const profileNext = (kinds) => (seed) => (opts['profile-kind'] ? mixSequence(kinds, seed, [opts['profile-kind']]) : mixSequence(kinds, seed));
