// One HTTP request of the contract suite, encoded the way a client of the contract would
// send it, with a deadline so an unresponsive deployment fails the case instead of hanging.
import type { CallOptions } from './suite-types.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

export async function exchange(baseUrl: string, method: string, path: string, o: CallOptions, timeoutMs: number): Promise<RawResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...o.headers };
  let body: string | undefined = o.body;
  if (o.json !== undefined) {
    body = JSON.stringify(o.json);
    headers['content-type'] ??= 'application/json';
  } else if (o.form !== undefined) {
    body = new URLSearchParams(o.form).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
  }
  if (o.token !== undefined) headers['authorization'] = `Bearer ${o.token}`;
  // Concatenated, not resolved: a base URL with a path prefix (https://host/api) keeps it.
  const res = await fetch(baseUrl.replace(/\/+$/, '') + path, {
    method,
    headers,
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(timeoutMs),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}
