// The scale phase's query shapes (design.md §7): how the cost of one search grows with the
// table, at 10k, 100k and 1M contacts, on MySQL and on SQLite. One request at a time against
// the service, p50 of `samples` after a warm-up: first pages under an indexed order, a page
// after a cursor 90 % deep, a 90 % deep Skip, and the totals. A shape the service refuses
// (a build without cursors or estimates) is reported as such, not timed.

const deep = (rows) => Math.floor(rows * 0.9);

/**
 * The shapes, each a query string or a function of the service that finds one (a cursor is
 * read off the page before it, as a client would).
 */
export function shapes(rows) {
  const cursor = (order) => async (get) => {
    const before = await get(`${order}&skip=${deep(rows) - 1}&take=1&fields=Id`);
    return before.next === undefined ? undefined : `${order}&take=50&after=${encodeURIComponent(before.next)}`;
  };
  return {
    'first page, order Id': 'take=50',
    'first page, orderBy=Recapito': 'take=50&orderBy=Recapito',
    'first page, orderByDesc=Recapito': 'take=50&orderByDesc=Recapito',
    'first page, orderByDesc=SoggettoId': 'take=50&orderByDesc=SoggettoId',
    'cursor 90% deep, orderBy=Recapito': cursor('orderBy=Recapito'),
    'cursor 90% deep, orderByDesc=Recapito': cursor('orderByDesc=Recapito'),
    'cursor 90% deep, orderByDesc=SoggettoId': cursor('orderByDesc=SoggettoId'),
    'skip 90%, order Id': `take=50&skip=${deep(rows)}`,
    'skip 90%, orderBy=Recapito': `take=50&skip=${deep(rows)}&orderBy=Recapito`,
    'EstimatedTotal, no filter': 'take=0&include=EstimatedTotal',
    'EstimatedTotal, tipoRecapitoId=1': 'take=0&include=EstimatedTotal&tipoRecapitoId=1',
    'EstimatedTotal, recapitoContains=@pec': 'take=0&include=EstimatedTotal&recapitoContains=@pec',
    // 0.5 % of the rows: too few for the sample to settle, so counted (design.md §7, its limit).
    'EstimatedTotal, recapitoContains=.rossi': 'take=0&include=EstimatedTotal&recapitoContains=.rossi',
    'EstimatedTotal, soggettoId=7': 'take=0&include=EstimatedTotal&soggettoId=7',
    'Total, no filter': 'take=0&include=Total',
    'Total, tipoRecapitoId=1': 'take=0&include=Total&tipoRecapitoId=1',
  };
}

/** A JSON GET of the search as the admin; throws on anything but 200. */
function searcher(baseUrl, token) {
  return async (query) => {
    const res = await fetch(`${baseUrl}/json/reply/SoggettoRecapitoQuery?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json();
    if (res.status !== 200) throw Object.assign(new Error(`${res.status} ${JSON.stringify(body.responseStatus?.errorCode)}`), { status: res.status });
    return body;
  };
}

/** p50 in ms of `samples` requests of each shape, one at a time, after `warmup` of each. */
export async function timeShapes(baseUrl, token, rows, { samples = 15, warmup = 3 } = {}) {
  const get = searcher(baseUrl, token);
  const result = {};
  for (const [name, shape] of Object.entries(shapes(rows))) {
    try {
      const query = typeof shape === 'function' ? await shape(get) : shape;
      if (query === undefined) { result[name] = { refused: 'no next' }; continue; }
      for (let i = 0; i < warmup; i++) await get(query);
      const times = [];
      let last;
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        last = await get(query);
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      result[name] = { p50: Math.round(times[Math.floor(times.length / 2)] * 100) / 100, ...(last.estimatedTotal !== undefined ? { estimated: last.estimatedTotal, kind: last.estimatedTotalKind } : {}), ...(last.total !== undefined ? { total: last.total } : {}) };
    } catch (err) {
      result[name] = { refused: err.message };
    }
  }
  return result;
}

/** The targets at 1M rows, per engine. */
export function scaleTargets(byEngine, add) {
  for (const [engine, sizes] of Object.entries(byEngine)) {
    const at1M = sizes['1M'];
    if (!at1M) continue;
    const check = (pattern, limit) => {
      for (const [name, r] of Object.entries(at1M)) {
        if (!pattern.test(name) || r.p50 === undefined) continue;
        add(`${engine}: ${name} at 1M, p50 ms`, r.p50, `<= ${limit}`, r.p50 <= limit);
      }
    };
    check(/^first page, order(By|ByDesc)=/, 5);
    check(/^cursor 90% deep/, 5);
    check(/^skip 90%, orderBy=/, engine === 'mysql' ? 250 : 50);
    check(/^EstimatedTotal/, 5);
  }
}

export function printScale(byEngine) {
  for (const [engine, sizes] of Object.entries(byEngine)) {
    const labels = Object.keys(sizes);
    console.log(`\n${engine}: SoggettoRecapitoQuery, p50 ms of one request at a time (${labels.join(', ')} rows)`);
    console.log('shape'.padEnd(42), ...labels.map((l) => l.padStart(10)));
    for (const name of Object.keys(sizes[labels[0]])) {
      const cell = (r) => (r?.p50 !== undefined ? String(r.p50) : 'refused');
      console.log(name.padEnd(42), ...labels.map((l) => cell(sizes[l][name]).padStart(10)));
    }
  }
}
