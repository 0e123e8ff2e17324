// The public surface of the AutoQuery engine. Nothing here knows about HTTP.
export type * from './catalog-types.js';
export { operatorKinds } from './catalog-types.js';
export { engineContext, type EngineContext } from './engine-context.js';
export type { QueryResponse } from './execute.js';
export { execute } from './execute.js';
export { plan } from './plan.js';
export type * from './plan-types.js';
export { render, type RenderedQuery } from './render.js';
export { parse, type QueryRequest, type RawParam } from './request.js';
export { compile, runQuery, type QueryOutcome } from './run-query.js';
