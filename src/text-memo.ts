// Texts repeat: a client sends the same Accept and Content-Type with every request, and the
// same OrderBy and Include with every page, so what is read from one is remembered by its
// text instead of being parsed again (parsing headers was a few percent of the CPU of a
// cheap query). Bounded: at most `limit` distinct texts, the oldest forgotten first, so a
// client that sends a new value each time costs a parse per request and no memory.
// `keep` says which values are remembered (e.g. not a failure, which is built afresh).
export function memoByText<T>(limit: number, read: (text: string) => T, keep: (value: T) => boolean = () => true): (text: string) => T {
  const kept = new Map<string, T>();
  return (text) => {
    const found = kept.get(text);
    if (found !== undefined) return found;
    const value = read(text);
    if (!keep(value)) return value;
    if (kept.size >= limit) kept.delete(kept.keys().next().value!);
    kept.set(text, value);
    return value;
  };
}
