// Parses a request body that read-body.ts has already bounded to 1 MiB (design.md §2):
// JSON (and any +json type) or a urlencoded form; anything else with content is 415.
import { isUtf8 } from 'node:buffer';
import { ApiError } from '../errors/api-error.js';
import { memoByText } from '../text-memo.js';
import type { Body } from './request-dto.js';

/** What a Content-Type says about the body: its kind, or why it is refused. */
type MediaType = { readonly kind: 'json' | 'form' } | { readonly kind: 'refused'; readonly message: string };

const mediaTypeOf = memoByText(256, (contentType: string): MediaType => {
  const media = contentType.split(';')[0]!.trim().toLowerCase();
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType)?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') return { kind: 'refused', message: `Charset ${charset} is not supported; send UTF-8` };
  if (media === 'application/json' || /^application\/[\w.-]+\+json$/.test(media)) return { kind: 'json' };
  if (media === 'application/x-www-form-urlencoded') return { kind: 'form' };
  return { kind: 'refused', message: `Content-Type ${media || '(none)'} is not supported; send application/json or application/x-www-form-urlencoded` };
});

export function parseBody(contentType: string | undefined, raw: Buffer | undefined): Body {
  if (!raw || raw.length === 0) return { kind: 'none' };
  const media = mediaTypeOf(contentType ?? '');
  if (media.kind === 'refused') throw ApiError.of('UnsupportedMediaType', media.message);
  // A native check, then a plain decode: a fatal TextDecoder took longer than the rest of
  // this function for a small body.
  if (!isUtf8(raw)) throw ApiError.of('SerializationException', 'The request body is not valid UTF-8');
  // As TextDecoder does: a leading byte order mark is not part of the text.
  const text = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? raw.toString('utf8', 3) : raw.toString('utf8');
  if (media.kind === 'form') return { kind: 'form', pairs: [...new URLSearchParams(text)] };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (err) {
    throw ApiError.of('SerializationException', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
