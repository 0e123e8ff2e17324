// The bench's floor: the bare side's answers (bare-answers.mjs, the same SQL and token check)
// carried by the libraries the service is built on: express 5 with express.json(), each
// request checked by an ajv validator compiled at start-up from the served contract's request
// schemas, each answer sent by res.json(). What the service costs above it is its own code.
import fs from 'node:fs';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import express from 'express';
import { bareAnswers, failed, notFound, roles } from './bare-answers.mjs';

const env = process.env;
const answers = await bareAnswers(env);
/** CONTRACT_FILE: the contract the service serves (the bench's snapshot of generated/). */
const contract = JSON.parse(fs.readFileSync(env.CONTRACT_FILE || new URL('../../generated/openapi.json', import.meta.url), 'utf8'));

// The service's options (src/http/ajv.ts): every broken rule, the contract's own keywords as
// annotations, each error's schema kept. Path parameters arrive as strings and coerce, as
// openapi-backend's parameter validators do; bodies do not.
const ajvOptions = { allErrors: true, strict: false, verbose: true };
const bodyAjv = addFormats(new Ajv(ajvOptions));
const paramAjv = addFormats(new Ajv({ ...ajvOptions, coerceTypes: true }));

/** The schema a `#/components/...` reference names. */
const resolve = (schema) => (schema.$ref ? schema.$ref.slice(2).split('/').reduce((o, k) => o[k], contract) : schema);

/** Each query DTO's body validator, from its route's request body in the contract. */
const validateBody = new Map(
  answers.operations.map((operation) => {
    const { requestBody } = contract.paths[`/json/reply/${operation}`].post;
    return [operation, bodyAjv.compile(resolve(requestBody.content['application/json'].schema))];
  }),
);

/** The files route's path parameters, as the contract declares them. */
const filesParameters = contract.paths['/impianti/{ImpiantoId}/files'].get.parameters.map(resolve).filter((p) => p.in === 'path');
const validateFilesPath = paramAjv.compile({
  type: 'object',
  properties: Object.fromEntries(filesParameters.map((p) => [p.name, p.schema])),
  required: filesParameters.filter((p) => p.required).map((p) => p.name),
});

const invalid = (errors) => [400, { responseStatus: { errorCode: 'ValidationError', errors: errors.map((e) => ({ fieldName: e.instancePath, message: e.message })) } }];
const send = (res, [status, body]) => res.status(status).json(body);

const app = express();
// As the service's app (src/app.ts): no X-Powered-By, no entity tag hashed over each body,
// routes matched case-sensitively and strictly.
app.disable('x-powered-by');
app.disable('etag');
app.enable('case sensitive routing');
app.enable('strict routing');
app.use(express.json());

app.get('/ready', async (_req, res) => send(res, await answers.ready()));

app.post('/json/reply/:operation', async (req, res, next) => {
  const validate = validateBody.get(req.params.operation);
  if (!validate) return next();
  const denied = answers.denied(req.headers.authorization, roles.query);
  if (denied) return send(res, denied);
  const body = req.body ?? {};
  send(res, validate(body) ? await answers.query(req.params.operation, body) : invalid(validate.errors));
});

app.get('/impianti/:ImpiantoId/files', async (req, res) => {
  const denied = answers.denied(req.headers.authorization, roles.files);
  if (denied) return send(res, denied);
  const params = { ...req.params };
  send(res, validateFilesPath(params) ? await answers.files(params.ImpiantoId) : invalid(validateFilesPath.errors));
});

app.use((_req, res) => send(res, notFound));
app.use((err, _req, res, _next) => send(res, failed(err)));

const server = app.listen(Number(env.PORT ?? 8090), env.HOST ?? '127.0.0.1');
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
