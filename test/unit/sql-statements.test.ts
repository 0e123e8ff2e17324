// Where the SQL prompt ends a statement: at semicolons outside quotes, identifiers and comments.
import { expect } from 'chai';
import { splitStatements } from '../../src/cli/sql-statements.js';

describe('sql prompt: statement ends', () => {
  const cases: Array<[string, string, { complete: string[]; rest: string }]> = [
    ['one statement', 'SELECT 1;', { complete: ['SELECT 1'], rest: '' }],
    ['two on a line, and the start of a third', 'SELECT 1; SELECT 2; SELECT', { complete: ['SELECT 1', 'SELECT 2'], rest: ' SELECT' }],
    ['a semicolon in a string', "SELECT 'a;b';", { complete: ["SELECT 'a;b'"], rest: '' }],
    ['a doubled quote inside a string', "SELECT 'it''s;';", { complete: ["SELECT 'it''s;'"], rest: '' }],
    ['quoted identifiers', 'SELECT "a;" , `b;`, [c;] FROM t;', { complete: ['SELECT "a;" , `b;`, [c;] FROM t'], rest: '' }],
    ['a line comment', 'SELECT 1 -- not here;\n;', { complete: ['SELECT 1 -- not here;'], rest: '' }],
    ['a block comment', 'SELECT /* ; */ 1;', { complete: ['SELECT /* ; */ 1'], rest: '' }],
    ['an open string waits for the next line', "SELECT 'a;\n", { complete: [], rest: "SELECT 'a;\n" }],
    ['empty statements are skipped', ' ; ;SELECT 1;', { complete: ['SELECT 1'], rest: '' }],
  ];
  for (const [name, text, want] of cases) it(name, () => expect(splitStatements(text)).to.deep.equal(want));
});
