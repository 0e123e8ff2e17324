// The first stage of reading a file to load: passes the bytes on in pieces that end at a
// line break, after checking that they are UTF-8 and that no line is longer than the bound,
// and drops a UTF-8 byte order mark. Cutting at line breaks keeps every multi-byte
// character whole (a 0x0A byte is never part of one), so each piece is checked on its own.
import { isUtf8 } from 'node:buffer';
import { Transform, type TransformCallback } from 'node:stream';
import { LoadStop } from './load-problem.js';

const newline = 0x0a;
const utf8Bom = Buffer.from([0xef, 0xbb, 0xbf]);

export class LineGuard extends Transform {
  /** Line breaks passed on so far. */
  lines = 0;
  /** Whether the file's last byte was a line break (known once the stream has ended). */
  endsWithNewline = true;
  private carry: Buffer | undefined;
  private started = false;

  constructor(private readonly maxLineBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let bytes = this.carry ? Buffer.concat([this.carry, chunk]) : chunk;
    this.carry = undefined;
    if (!this.started) {
      if (bytes.length < 3) { this.carry = bytes; return done(); }
      this.started = true;
      if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return done(new LoadStop({ line: 1, message: 'not UTF-8: the file starts with a UTF-16 byte order mark; save it as UTF-8' }));
      if (bytes.subarray(0, 3).equals(utf8Bom)) bytes = bytes.subarray(3);
    }
    const cut = bytes.lastIndexOf(newline) + 1;
    const rest = bytes.length - cut;
    if (bytes.length > this.maxLineBytes) {
      const long = this.longLine(bytes);
      if (long) return done(long);
    }
    if (rest > 0) this.carry = Buffer.from(bytes.subarray(cut));
    if (cut > 0) {
      const whole = bytes.subarray(0, cut);
      const bad = this.check(whole);
      if (bad) return done(bad);
      this.lines += countLines(whole, cut);
      this.push(whole);
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    const last = this.carry;
    this.carry = undefined;
    if (last && last.length > 0) {
      this.endsWithNewline = false;
      const piece = !this.started && last.subarray(0, 3).equals(utf8Bom) ? last.subarray(3) : last;
      const bad = this.check(piece);
      if (bad) return done(bad);
      this.push(piece);
    }
    done();
  }

  /** The first line longer than the bound, as a LoadStop; a line still open at the end counts. */
  private longLine(bytes: Buffer): LoadStop | undefined {
    let start = 0;
    for (let line = this.lines + 1; start <= bytes.length; line++) {
      const end = bytes.indexOf(newline, start);
      const stop = end === -1 ? bytes.length : end;
      if (stop - start > this.maxLineBytes) return new LoadStop({ line, message: `a line longer than ${this.maxLineBytes} bytes, the bound on one row` });
      if (end === -1) return undefined;
      start = end + 1;
    }
    return undefined;
  }

  /** The first line that is not UTF-8, as a LoadStop; undefined when all are. */
  private check(bytes: Buffer): LoadStop | undefined {
    if (isUtf8(bytes)) return undefined;
    let start = 0;
    for (let line = this.lines + 1; ; line++) {
      const end = bytes.indexOf(newline, start);
      const stop = end === -1 ? bytes.length : end;
      if (!isUtf8(bytes.subarray(start, stop))) return new LoadStop({ line, message: 'not UTF-8: this line holds bytes that are no UTF-8 character (a file saved as Latin-1 or Windows-1252?); save it as UTF-8' });
      if (end === -1) return undefined;
      start = end + 1;
    }
  }
}

function countLines(bytes: Buffer, end: number): number {
  let n = 0;
  for (let at = bytes.indexOf(newline); at !== -1 && at < end; at = bytes.indexOf(newline, at + 1)) n++;
  return n;
}
