// The bench's bare side: the hand-written answers (bare-answers.mjs) on node:http alone. No
// framework, no validation, no logging: the floor of what Node, the token and the database
// cost for this work.
import http from 'node:http';
import { bareAnswers, failed, notFound, roles } from './bare-answers.mjs';

const env = process.env;
const answers = await bareAnswers(env);
const operations = new Set(answers.operations);

function send(res, [status, body]) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(json) });
  res.end(json);
}

async function handle(req, text) {
  const url = req.url;
  if (url === '/ready') return answers.ready();
  let m;
  if (req.method === 'POST' && (m = /^\/json\/reply\/(\w+)$/.exec(url)) && operations.has(m[1])) {
    return answers.denied(req.headers.authorization, roles.query) ?? answers.query(m[1], JSON.parse(text));
  }
  if (req.method === 'GET' && (m = /^\/impianti\/(\d+)\/files$/.exec(url))) {
    return answers.denied(req.headers.authorization, roles.files) ?? answers.files(Number(m[1]));
  }
  return notFound;
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    handle(req, chunks.length ? Buffer.concat(chunks).toString('utf8') : '')
      .then((answer) => send(res, answer))
      .catch((err) => send(res, failed(err)));
  });
});

server.listen(Number(env.PORT ?? 8090), env.HOST ?? '127.0.0.1');
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
