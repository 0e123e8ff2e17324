// The trigram tables the catalog names (spec/query-dtos.yaml, `substringIndex`) are those the
// migrations create: marking a field, or unmarking one, needs a migration of its own.
import { expect } from 'chai';
import { substringIndexes } from '../../src/db/substring-index/substring-index.js';
import { indexes as migration008 } from '../../src/db/migrations/008-substring-index.js';

describe('substring index catalog', () => {
  it('names exactly the trigram tables the migrations create', () => {
    expect(substringIndexes).to.deep.equal(migration008);
  });
});
