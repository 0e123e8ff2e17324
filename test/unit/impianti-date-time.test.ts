// Date-time reading and writing of impianto_file: every stored form an operator or a driver
// may leave in a cell becomes the one API form, ISO 8601 UTC with milliseconds.
import { expect } from 'chai';
import { toDbDateTime, toIsoUtc } from '../../src/impianti/date-time.js';

describe('impianti date-time', () => {
  const readable: Array<[string, unknown, string]> = [
    ['a Date (mysql2)', new Date(Date.UTC(2026, 10, 20, 10, 15, 30, 7)), '2026-11-20T10:15:30.007Z'],
    ['epoch ms number (knex on better-sqlite3)', Date.UTC(2026, 10, 20, 10, 15, 30), '2026-11-20T10:15:30.000Z'],
    ['epoch ms as text', '1795169730000', '2026-11-20T10:15:30.000Z'],
    ['SQL text without fraction', '2026-11-20 10:15:30', '2026-11-20T10:15:30.000Z'],
    ['SQL text with milliseconds', '2026-11-20 10:15:30.120', '2026-11-20T10:15:30.120Z'],
    ['SQL text with one fraction digit', '2026-11-20 10:15:30.5', '2026-11-20T10:15:30.500Z'],
    ['SQL text with microseconds (truncated)', '2026-11-20 10:15:30.123999', '2026-11-20T10:15:30.123Z'],
    ['SQL text without seconds', '2026-11-20 10:15', '2026-11-20T10:15:00.000Z'],
    ['a date only', '2026-11-20', '2026-11-20T00:00:00.000Z'],
    ['ISO text in UTC', '2026-11-20T10:15:30.000Z', '2026-11-20T10:15:30.000Z'],
    ['ISO text with an offset', '2026-11-20T12:15:30+02:00', '2026-11-20T10:15:30.000Z'],
    ['ISO text with a negative offset', '2026-11-20T05:15:30.250-0500', '2026-11-20T10:15:30.250Z'],
  ];
  for (const [name, given, want] of readable) {
    it(`reads ${name}`, () => expect(toIsoUtc(given)).to.equal(want));
  }

  const unreadable: Array<[string, unknown]> = [
    ['null', null], ['an invalid Date', new Date(Number.NaN)], ['free text', 'ieri'],
    ['February 30', '2026-02-30 10:00:00'], ['hour 25', '2026-11-20 25:00:00'], ['a boolean', true],
  ];
  for (const [name, given] of unreadable) {
    it(`refuses ${name} rather than inventing a date`, () => expect(() => toIsoUtc(given)).to.throw(/unreadable date-time/));
  }

  it('writes UTC text with milliseconds that both engines store as is', () => {
    expect(toDbDateTime(new Date('2026-11-20T10:15:30.000Z'))).to.equal('2026-11-20 10:15:30.000');
    expect(toIsoUtc(toDbDateTime(new Date('2024-02-29T23:59:59.999Z')))).to.equal('2024-02-29T23:59:59.999Z');
  });
});
