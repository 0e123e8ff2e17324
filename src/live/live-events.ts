// The text of Server-Sent Events (WHATWG HTML §9.2, "Server-sent events"), as the live
// answers send them (design.md §7, "Live answers"): an answer is a `message`
// whose `id` is its entity tag, so a browser's EventSource resumes with Last-Event-ID.
// Each event is encoded once, as bytes: every stream it goes to writes the same buffer.

/** An answer: `data` is the JSON the plain GET answers (one line: JSON text holds no line break). */
export function answerEvent(tag: string | undefined, data: string): Buffer {
  return Buffer.from(tag === undefined ? `data: ${data}\n\n` : `id: ${tag}\ndata: ${data}\n\n`);
}

/** A named event that is no answer (`expired`, `unavailable`), its data a ResponseStatus envelope. */
export function namedEvent(name: string, data: string): Buffer {
  return Buffer.from(`event: ${name}\ndata: ${data}\n\n`);
}

/** A comment line: proxies see bytes on an idle stream, EventSource ignores them. */
export const heartbeat = Buffer.from(': keep-alive\n\n');

/** How long a client waits before it reconnects. */
export const retryField = (ms: number): Buffer => Buffer.from(`retry: ${Math.max(0, Math.round(ms))}\n\n`);
