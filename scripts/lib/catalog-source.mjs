// Renders generated/query-catalog.ts: the whitelist the planner and renderer read. Values
// are written as TypeScript literals, one entry per line, so a diff shows what changed.
import { generatedHeader } from './header.mjs';

const str = (s) => `'${String(s).replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** A flat object as `{ key: value, ... }`; values are strings, numbers, booleans or string lists. */
function literal(object) {
  const value = (v) => (Array.isArray(v) ? `[${v.map(value).join(', ')}]` : typeof v === 'string' ? str(v) : String(v));
  return `{ ${Object.entries(object).map(([k, v]) => `${k}: ${value(v)}`).join(', ')} }`;
}

function dtoSource(dto) {
  const lines = (items) => items.map((i) => `      ${literal(i)},`).join('\n');
  return [
    `  ${dto.operation}: {`,
    `    operation: ${str(dto.operation)},`,
    `    record: ${str(dto.record)},`,
    `    table: ${str(dto.table)},`,
    `    primaryKey: ${str(dto.primaryKey)},`,
    '    fields: [',
    lines(dto.fields),
    '    ],',
    '    filters: [',
    lines(dto.filters),
    '    ],',
    '  },',
  ].join('\n');
}

export function renderCatalogSource(catalog) {
  return `${generatedHeader}
// The query whitelist: operators, limits and, per query DTO, its fields and filters.
// Only names found here ever reach SQL (design.md §7).
import type { OperatorSpec, QueryDtoSpec, QueryLimits } from '../src/query/catalog-types.js';

export const operators: readonly OperatorSpec[] = [
${catalog.operators.map((op) => `  ${literal(op)},`).join('\n')}
];

export const limits: QueryLimits = ${literal(catalog.limits)};

export const queryDtos = {
${catalog.queryDtos.map(dtoSource).join('\n')}
} as const satisfies Readonly<Record<string, QueryDtoSpec>>;

export type QueryOperation = keyof typeof queryDtos;

export const queryDtoList: readonly QueryDtoSpec[] = [${catalog.queryDtos.map((d) => `queryDtos.${d.operation}`).join(', ')}];
`;
}
