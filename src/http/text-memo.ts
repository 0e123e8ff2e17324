// Header values repeat: a client sends the same Accept and Content-Type with every request,
// so what the edge reads from one is remembered by its text instead of being parsed again
// (parsing them was a few percent of the CPU of a cheap query). Bounded: at most
// `limit` distinct texts, the oldest forgotten first, so a client that sends a new value
// each time costs a parse per request and no memory.
export function memoByText<T>(limit: number, read: (text: string) => T): (text: string) => T {
  const kept = new Map<string, T>();
  return (text) => {
    const found = kept.get(text);
    if (found !== undefined) return found;
    const value = read(text);
    if (kept.size >= limit) kept.delete(kept.keys().next().value!);
    kept.set(text, value);
    return value;
  };
}
