// Property-based fuzzing from the contract: at least 10,000 malformed requests a run across
// every operation, 5,000 per dialect. Each must get a 4xx with a well-formed
// responseStatus (or, with a valid JSONP callback, a 200 wrapping one); the service
// must stay up, log no 5xx, and leave every table exactly as it was.
import fs from 'node:fs';
import { expect } from 'chai';
import fc from 'fast-check';
import { loadContract } from '../../src/http/contract.js';
import { errorLines } from '../reliability/support/service-process.js';
import { forEachDialect } from '../support/dialects.js';
import { assertProperty } from '../support/property-seed.js';
import { startFuzzTarget, type FuzzTarget } from './support/fuzz-target.js';
import { malformedRequests, type FuzzCase } from './support/malformed-requests.js';
import { send } from './support/raw-http.js';
import { snapshot, type Snapshot } from './support/table-snapshot.js';
import { verdict } from './support/verdict.js';

// FUZZ_REQUESTS (per dialect): 5,000 in `make test`, 20,000 in `make test-reliability`.
// FUZZ_SEED replays a run (every run prints its seed); FUZZ_SKIP (comma list of malformation
// kinds) leaves some out while one is being fixed.
const total = Number(process.env['FUZZ_REQUESTS'] ?? 5_000);
const batch = 8;

forEachDialect('fuzz: malformed requests', (dialect) => {
  let target: FuzzTarget;
  let initial: Snapshot;
  before(async function () {
    this.timeout(120_000);
    target = await startFuzzTarget(dialect, 'fuzz');
    initial = await snapshot(target.db.db);
  });
  after(async () => target?.close());

  it(`answers ${total} malformed requests with a 4xx and a well-formed responseStatus`, async function () {
    this.timeout(300_000);
    const tally = { requests: 0, byKind: {} as Record<string, number>, byStatus: {} as Record<string, number>, slowestMs: {} as Record<string, number>, operations: new Set<string>() };
    const started = Date.now();
    const arbitrary = fc.array(malformedRequests(await loadContract(), target.tokens), { minLength: batch, maxLength: batch });
    await assertProperty(
      fc.asyncProperty(arbitrary, async (cases: FuzzCase[]) => {
        const answers = await Promise.all(cases.map(async (c) => {
          const t0 = performance.now();
          const answer = await send(target.port, c.request);
          tally.slowestMs[c.kind] = Math.max(tally.slowestMs[c.kind] ?? 0, Math.round(performance.now() - t0));
          return answer;
        }));
        cases.forEach((c, i) => {
          const v = verdict(c, answers[i]!);
          tally.requests++;
          tally.byKind[c.kind] = (tally.byKind[c.kind] ?? 0) + 1;
          tally.byStatus[v.status] = (tally.byStatus[v.status] ?? 0) + 1;
          tally.operations.add(c.operationId);
          if (v.problem) {
            const target = Buffer.isBuffer(c.request.target) ? c.request.target.toString('latin1') : c.request.target;
            throw new Error(`${c.kind} ${c.request.method} ${target.slice(0, 300)} -> ${answers[i]!.status}: ${v.problem}`);
          }
        });
      }),
      {
        numRuns: Math.ceil(total / batch),
        // The counterexample holds megabytes of request bytes: report the path and the failure only (assertProperty adds the seed).
        asyncReporter: async (d) => {
          if (d.failed) throw new Error(`fuzz failed (path ${d.counterexamplePath}): ${(d.errorInstance as Error | undefined)?.message}`);
        },
      },
      'FUZZ_SEED',
    );
    const seconds = (Date.now() - started) / 1000;
    fs.mkdirSync('test-output', { recursive: true });
    fs.writeFileSync(`test-output/fuzz-${dialect}.json`, JSON.stringify({ ...tally, operations: [...tally.operations].sort(), seconds }, null, 2));
    expect(tally.requests).to.be.at.least(total);
    expect([...tally.operations].sort()).to.deep.equal([...(await loadContract()).canonicalIds].sort());
  });

  it('stays up, logs no server error and leaves every table unchanged', async () => {
    expect(target.service.alive()).to.equal(true);
    expect((await fetch(`${target.service.url}/health`)).status).to.equal(200);
    expect(errorLines(target.service.logFile)).to.deep.equal([]);
    expect(await snapshot(target.db.db)).to.deep.equal(initial);
  });
});
