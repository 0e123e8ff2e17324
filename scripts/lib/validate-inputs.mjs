// Checks spec/query-operators.yaml and spec/query-dtos.yaml against each other and against
// the vocabulary of src/query/catalog-types.ts, and returns them normalised. Column and
// table names end up in SQL as identifiers, so anything but plain snake_case is refused.
import { pascalCasePattern, snakeCasePattern } from './naming.mjs';
import { SpecError } from './spec-error.mjs';

const arities = ['one', 'pair', 'list'];
const schemaTypes = ['integer', 'string', 'boolean'];
/** Paging and shaping properties of design.md §7: no filter may take their name. */
export const shapingProperties = ['Skip', 'Take', 'OrderBy', 'OrderByDesc', 'Include', 'Fields', 'Meta'];

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkOperators(table, vocabulary, problems) {
  const at = 'spec/query-operators.yaml';
  const families = isObject(table?.families) ? table.families : {};
  if (!isObject(table?.families)) problems.push(`${at}: \`families\` must be a map`);
  for (const [name, schema] of Object.entries(families)) {
    if (!vocabulary.families.includes(name)) problems.push(`${at}: family "${name}" is not a Family of catalog-types.ts (${vocabulary.families.join(', ')})`);
    if (!schemaTypes.includes(schema?.type)) problems.push(`${at}: family "${name}" has type ${JSON.stringify(schema?.type)}; expected one of ${schemaTypes.join(', ')}`);
  }
  const stringMaxLength = families.string?.maxLength;
  if (!Number.isInteger(stringMaxLength) || stringMaxLength < 1) problems.push(`${at}: families.string.maxLength must be a positive integer`);
  const inMaxItems = table?.limits?.inMaxItems;
  if (!Number.isInteger(inMaxItems) || inMaxItems < 1) problems.push(`${at}: limits.inMaxItems must be a positive integer`);
  const takeMaximum = table?.limits?.takeMaximum;
  if (!Number.isInteger(takeMaximum) || takeMaximum < 0 || takeMaximum > 2147483647) problems.push(`${at}: limits.takeMaximum must be an integer from 0 to 2147483647`);

  const operators = Array.isArray(table?.operators) ? table.operators : [];
  if (!Array.isArray(table?.operators)) problems.push(`${at}: \`operators\` must be a list`);
  const seenKinds = new Set();
  const seenSuffixes = new Set();
  for (const [i, op] of operators.entries()) {
    const where = `${at}: operator ${i + 1} (${op?.kind})`;
    if (!vocabulary.operatorKinds.includes(op?.kind)) problems.push(`${where}: kind is not in operatorKinds of catalog-types.ts (${vocabulary.operatorKinds.join(', ')})`);
    if (seenKinds.has(op?.kind)) problems.push(`${where}: duplicate kind`);
    seenKinds.add(op?.kind);
    if (typeof op?.suffix !== 'string' || !/^([A-Z][A-Za-z]*)?$/.test(op.suffix)) problems.push(`${where}: suffix must be "" or PascalCase letters`);
    if (seenSuffixes.has(op?.suffix)) problems.push(`${where}: duplicate suffix "${op?.suffix}"`);
    seenSuffixes.add(op?.suffix);
    if (typeof op?.text !== 'string' || op.text.trim() === '') problems.push(`${where}: text must say what the operator does`);
    if (!arities.includes(op?.arity)) problems.push(`${where}: arity must be one of ${arities.join(', ')}`);
    if (!Array.isArray(op?.families) || op.families.length === 0) problems.push(`${where}: families must be a non-empty list`);
    for (const f of Array.isArray(op?.families) ? op.families : []) {
      if (!(f in families)) problems.push(`${where}: unknown family "${f}"`);
    }
  }
  // The renderer dispatches on Record<OperatorKind, ...>: a kind without a table row would
  // be a handler no request can reach, so both lists must match exactly.
  for (const kind of vocabulary.operatorKinds) {
    if (!seenKinds.has(kind)) problems.push(`${at}: operatorKinds of catalog-types.ts lists "${kind}" but the table has no such operator`);
  }
  return { families, limits: { inMaxItems, stringMaxLength, takeMaximum }, operators };
}

function checkDto(dto, index, ctx, problems) {
  const at = `spec/query-dtos.yaml: dto ${index + 1} (${dto?.operation})`;
  for (const key of ['operation', 'record']) {
    if (typeof dto?.[key] !== 'string' || !pascalCasePattern.test(dto[key])) problems.push(`${at}: ${key} must be PascalCase`);
  }
  if (ctx.operations.has(dto?.operation)) problems.push(`${at}: duplicate operation`);
  ctx.operations.add(dto?.operation);
  if (typeof dto?.table !== 'string' || !snakeCasePattern.test(dto.table)) problems.push(`${at}: table ${JSON.stringify(dto?.table)} is not snake_case (${snakeCasePattern})`);
  const fields = Array.isArray(dto?.fields) ? dto.fields : [];
  if (fields.length === 0) problems.push(`${at}: fields must be a non-empty list`);
  // Request names match case-insensitively (design.md §1), so uniqueness is checked folded,
  // over field names and over every parameter the fields produce (`IdIn` vs a field `IdIn`).
  const fieldNames = new Set();
  const params = new Map(shapingProperties.map((p) => [p.toLowerCase(), `paging parameter ${p}`]));
  const columns = new Set();
  for (const field of fields) {
    const where = `${at}: field ${field?.name}`;
    if (typeof field?.name !== 'string' || !pascalCasePattern.test(field.name)) problems.push(`${where}: name must be PascalCase`);
    if (typeof field?.column !== 'string' || !snakeCasePattern.test(field.column)) problems.push(`${where}: column ${JSON.stringify(field?.column)} is not snake_case (${snakeCasePattern})`);
    else if (columns.has(field.column)) problems.push(`${where}: duplicate column "${field.column}"`);
    columns.add(field?.column);
    if (!(field?.family in ctx.families)) problems.push(`${where}: unknown family "${field?.family}"`);
    if (typeof field?.nullable !== 'boolean') problems.push(`${where}: nullable must be true or false`);
    // A record's string carries its column's length (maxLength); other families have none.
    const lengthOk = field?.family === 'string' ? Number.isInteger(field?.length) && field.length > 0 : field?.length === undefined;
    if (!lengthOk) problems.push(`${where}: length must be the column's length (a positive integer) for a string field, and absent otherwise`);
    // The trigram index (design.md §8, "Substring index") serves Contains and EndsWith on string fields only.
    const substringOk = field?.substringIndex === undefined || (typeof field.substringIndex === 'boolean' && field?.family === 'string');
    if (!substringOk) problems.push(`${where}: substringIndex must be true or false, and only on a string field`);
    const folded = String(field?.name).toLowerCase();
    if (fieldNames.has(folded)) {
      problems.push(`${where}: duplicate field name (names are case-insensitive)`);
      continue;
    }
    fieldNames.add(folded);
    for (const op of ctx.operators.filter((o) => Array.isArray(o.families) && o.families.includes(field?.family))) {
      const param = `${field?.name}${op.suffix}`;
      const other = params.get(param.toLowerCase());
      if (other) problems.push(`${where}: parameter ${param} collides with ${other}`);
      else params.set(param.toLowerCase(), `parameter ${param}`);
    }
  }
}

/**
 * Validates both tables; throws a SpecError listing every problem.
 * @returns the inputs the builders use: { families, limits, operators, dtos }.
 */
export function validateInputs(operatorTable, dtoTable, vocabulary) {
  const problems = [];
  const { families, limits, operators } = checkOperators(operatorTable, vocabulary, problems);
  const dtos = Array.isArray(dtoTable?.dtos) ? dtoTable.dtos : [];
  if (dtos.length === 0) problems.push('spec/query-dtos.yaml: `dtos` must be a non-empty list');
  const ctx = { families, operators, operations: new Set() };
  dtos.forEach((dto, i) => checkDto(dto, i, ctx, problems));
  if (problems.length > 0) throw new SpecError(problems);
  return { families, limits, operators, dtos };
}
