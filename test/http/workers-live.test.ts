// WORKERS=2 and live answers (design.md §7, "Live answers"; §10): each worker reads the table
// versions for its own streams, so a write made straight to the database reaches the
// subscribers of both workers.
import http from 'node:http';
import { expect } from 'chai';
import type { ServiceProcess } from '../reliability/support/service-process.js';
import { createTestDb, type TestDb } from '../support/db.js';
import { admin, logOf, startTwoWorkers, waitFor } from '../support/two-workers.js';
import { forEachDialect } from '../support/dialects.js';




/** An event stream on a connection of its own (the primary hands each new connection to the next worker): its data lines as they come. */
function stream(url: string, reqPath: string, headers: Record<string, string>): { data: string[]; close(): void } {
  const u = new URL(url);
  const data: string[] = [];
  const req = http.request({ host: u.hostname, port: Number(u.port), path: reqPath, agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf('\n\n')) >= 0) {
        const line = buffer.slice(0, at).split('\n').find((l) => l.startsWith('data: '));
        if (line) data.push(line.slice(6));
        buffer = buffer.slice(at + 2);
      }
    });
    res.on('error', () => undefined);
  });
  req.on('error', () => undefined);
  req.end();
  return { data, close: () => req.destroy() };
}

forEachDialect('WORKERS=2: live answers', (dialect) => {
  let t: TestDb;
  let service: ServiceProcess | undefined;
  before(async () => {
    t = await createTestDb(dialect);
    await t.knex('impianto').insert({ id: 1, nome: 'Impianto 1' });
    await t.knex('impianto_file').insert({ id: 1, nome: 'Documenti', is_folder: true, folder_id: null, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
  });
  after(async () => {
    await service?.stop();
    await t.drop();
  });

  it('sends a write made to the database to the streams of both workers', async function () {
    this.timeout(120_000);
    service = await startTwoWorkers(t, `workers-live-${dialect}`, { LIVE_INTERVAL_MS: '100' });
    const s = service;
    const signIn = await fetch(`${s.url}/auth/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(admin) });
    const token = ((await signIn.json()) as { bearerToken: string }).bearerToken;

    const streams = [0, 1, 2, 3].map((i) => stream(s.url, '/impianti/1/files', { authorization: `Bearer ${token}`, 'x-request-id': `live-${i}` }));
    try {
      await waitFor(() => (streams.every((st) => st.data.length === 1) ? true : undefined), 'every first event');
      await t.knex('impianto_file').insert({ id: 2, nome: 'a.pdf', is_folder: false, folder_id: 1, impianto_id: 1, data_creazione: new Date(0), data_aggiornamento: new Date(0) });
      await waitFor(() => (streams.every((st) => st.data.length === 2) ? true : undefined), 'the write on every stream', 5_000);
      for (const st of streams) expect((JSON.parse(st.data[1]!) as { contents: Array<{ nome: string }> }).contents.map((f) => f.nome)).to.deep.equal(['a.pdf']);
    } finally {
      for (const st of streams) st.close();
    }
    // Each stream's log line is written as it ends: which worker served it.
    const workers = await waitFor(() => {
      const lines = logOf(s).filter((l) => l.msg === 'request' && l.reqId?.startsWith('live-'));
      return lines.length === 4 ? new Set(lines.map((l) => l.worker)) : undefined;
    }, 'the streams\' log lines');
    expect(workers.size, 'the workers that served the streams').to.equal(2);
  });
});
