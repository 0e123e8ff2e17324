// The text of Server-Sent Events (WHATWG HTML §9.2, "Server-sent events"), as the live
// answers send them (design.md §7, "Live answers"): an answer is a `message`
// whose `id` is its entity tag, so a browser's EventSource resumes with Last-Event-ID.

/** An answer: `data` is the JSON the plain GET answers (one line: JSON text holds no line break). */
export function answerEvent(tag: string | undefined, data: string): string {
  return tag === undefined ? `data: ${data}\n\n` : `id: ${tag}\ndata: ${data}\n\n`;
}

/** A named event that is no answer (`expired`, `unavailable`), its data a ResponseStatus envelope. */
export function namedEvent(name: string, data: string): string {
  return `event: ${name}\ndata: ${data}\n\n`;
}

/** A comment line: proxies see bytes on an idle stream, EventSource ignores them. */
export const heartbeat = ': keep-alive\n\n';

/** How long a client waits before it reconnects. */
export const retryField = (ms: number): string => `retry: ${Math.max(0, Math.round(ms))}\n\n`;
