// The scale phase's query shapes (design.md §7): what one SoggettoRecapitoQuery costs at each
// table size, one request at a time against the service. Each shape is a query string, or a
// function that finds one from the service (a cursor is read off the page before it, as a
// client reads it). The fragments match, in data.mjs's rows at 1M: `12345` 14 contacts
// (a phone fragment), `3471234` none (phones hold a space there), `qqzzqq` none, `rossi`
// 6,191 (also the Total's, within 10,000), `.rossi` 4,959, `@pec` 100,046.

const deep = (rows) => Math.floor(rows * 0.9);

/** [name, shape, limit at the largest size in ms (or per engine), or none]. */
export function shapes(rows) {
  const cursor = (order) => async (get) => {
    const before = await get(`${order}&skip=${deep(rows) - 1}&take=1&fields=Id`);
    return before.next === undefined ? undefined : `${order}&take=50&after=${encodeURIComponent(before.next)}`;
  };
  const contains = (fragment, limit) => [
    [`contains ${fragment}, first page`, `take=50&recapitoContains=${fragment}`, limit],
    [`contains ${fragment}, first page, orderBy=Recapito`, `take=50&recapitoContains=${fragment}&orderBy=Recapito`, limit],
  ];
  return [
    ['indexed lookup, soggettoId', `soggettoId=${Math.ceil(rows / 10)}`],
    ['first page, order Id', 'take=50'],
    ['first page, orderBy=Recapito', 'take=50&orderBy=Recapito', 5],
    ['first page, orderByDesc=Recapito', 'take=50&orderByDesc=Recapito', 5],
    ['first page, orderByDesc=SoggettoId', 'take=50&orderByDesc=SoggettoId', 5],
    ['cursor 90% deep, orderBy=Recapito', cursor('orderBy=Recapito'), 5],
    ['cursor 90% deep, orderByDesc=Recapito', cursor('orderByDesc=Recapito'), 5],
    ['cursor 90% deep, orderByDesc=SoggettoId', cursor('orderByDesc=SoggettoId'), 5],
    ['skip 90%, order Id', `take=50&skip=${deep(rows)}`],
    ['skip 90%, orderBy=Recapito', `take=50&skip=${deep(rows)}&orderBy=Recapito`, { mysql: 250, sqlite: 50 }],
    ...contains('12345', 10),
    ...contains('3471234', 10),
    ...contains('qqzzqq', 10),
    ...contains('rossi', 10),
    ['Total, recapitoContains=rossi', 'take=1&include=Total&recapitoContains=rossi', 20],
    ['endsWith @pec.it, first page', 'take=50&recapitoEndsWith=@pec.it'],
    ['startsWith mario.rossi, first page', 'take=50&recapitoStartsWith=mario.rossi', 10],
    ['EstimatedTotal, no filter', 'take=0&include=EstimatedTotal', 5],
    ['EstimatedTotal, tipoRecapitoId=1', 'take=0&include=EstimatedTotal&tipoRecapitoId=1', 5],
    ['EstimatedTotal, soggettoId=7', 'take=0&include=EstimatedTotal&soggettoId=7', 5],
    ['EstimatedTotal, recapitoContains=12345', 'take=0&include=EstimatedTotal&recapitoContains=12345', 5],
    ['EstimatedTotal, recapitoContains=.rossi', 'take=0&include=EstimatedTotal&recapitoContains=.rossi', 5],
    ['EstimatedTotal, recapitoContains=@pec', 'take=0&include=EstimatedTotal&recapitoContains=@pec', 5],
    ['Total, no filter', 'take=0&include=Total'],
    ['Total, tipoRecapitoId=1', 'take=0&include=Total&tipoRecapitoId=1'],
  ];
}

/** A JSON GET of the search as the admin; throws on anything but 200. */
function searcher(port, token) {
  return async (query) => {
    const res = await fetch(`http://127.0.0.1:${port}/json/reply/SoggettoRecapitoQuery?${query}`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`${res.status} ${body.responseStatus?.errorCode}`);
    return body;
  };
}

/**
 * p50 ms of each shape, one request at a time, after two warm-up requests: 15 samples, or
 * as many as fit in 3 s (at least 3) where one request takes longer.
 */
export async function timeShapes(port, token, rows, { samples = 15, budgetMs = 3000 } = {}) {
  const get = searcher(port, token);
  const result = {};
  for (const [name, shape] of shapes(rows)) {
    try {
      const query = typeof shape === 'function' ? await shape(get) : shape;
      if (query === undefined) throw new Error('no next page');
      await get(query);
      let last = await get(query);
      const times = [];
      const started = performance.now();
      while (times.length < samples && (times.length < 3 || performance.now() - started < budgetMs)) {
        const t = performance.now();
        last = await get(query);
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      result[name] = { p50: Math.round(times[Math.floor(times.length / 2)] * 100) / 100, samples: times.length, ...pick(last, ['total', 'estimatedTotal', 'estimatedTotalKind']) };
    } catch (err) {
      result[name] = { refused: err.message };
    }
  }
  return result;
}

const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
