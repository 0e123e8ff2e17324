// Parses a request body that read-body.ts has already bounded to 1 MiB (design.md §2):
// JSON (and any +json type) or a urlencoded form; anything else with content is 415.
import { ApiError } from '../errors/api-error.js';
import type { Body } from './request-dto.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export function parseBody(contentType: string | undefined, raw: Buffer | undefined): Body {
  if (!raw || raw.length === 0) return { kind: 'none' };
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const charset = /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw ApiError.of('UnsupportedMediaType', `Charset ${charset} is not supported; send UTF-8`);
  }
  const isJson = media === 'application/json' || /^application\/[\w.-]+\+json$/.test(media);
  const isForm = media === 'application/x-www-form-urlencoded';
  if (!isJson && !isForm) {
    throw ApiError.of('UnsupportedMediaType', `Content-Type ${media || '(none)'} is not supported; send application/json or application/x-www-form-urlencoded`);
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw ApiError.of('SerializationException', 'The request body is not valid UTF-8');
  }
  if (isForm) return { kind: 'form', pairs: [...new URLSearchParams(text)] };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch (err) {
    throw ApiError.of('SerializationException', `The request body is not valid JSON: ${(err as Error).message}`);
  }
}
