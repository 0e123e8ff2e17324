import { expect } from 'chai';
import { toCsv } from '../../src/http/csv.js';

describe('CSV writer', () => {
  const columns = [
    { name: 'Id', family: 'integer' as const },
    { name: 'Recapito', family: 'string' as const },
    { name: 'IsDisattiva', family: 'boolean' as const },
  ];
  const write = (rows: Array<Record<string, unknown>>) => toCsv({ columns, properties: ['id', 'recapito', 'isDisattiva'], rows });

  it('writes a header row and CRLF line ends', () => {
    expect(write([{ id: 1, recapito: 'a', isDisattiva: false }])).to.equal('Id,Recapito,IsDisattiva\r\n1,a,false\r\n');
  });
  it('quotes commas, quotes and line breaks (RFC 4180)', () => {
    expect(write([{ id: 2, recapito: 'via Roma, 1 "B"\nscala', isDisattiva: true }])).to.equal('Id,Recapito,IsDisattiva\r\n2,"via Roma, 1 ""B""\nscala",true\r\n');
  });
  it('leaves nulls and absent values empty', () => {
    expect(write([{ id: 3, recapito: null }])).to.equal('Id,Recapito,IsDisattiva\r\n3,,\r\n');
  });
  for (const start of ['=', '+', '-', '@', '\t', '\r']) {
    it(`prefixes a string cell starting with ${JSON.stringify(start)}`, () => {
      const out = write([{ id: 4, recapito: `${start}SUM(A1)`, isDisattiva: false }]);
      expect(out.split('\r\n')[1]).to.match(/^4,"?'/);
    });
  }
  it('never prefixes number cells', () => {
    expect(write([{ id: -5, recapito: 'x', isDisattiva: false }])).to.equal('Id,Recapito,IsDisattiva\r\n-5,x,false\r\n');
  });
});
