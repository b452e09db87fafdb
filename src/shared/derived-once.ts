/**
 * A pure function of a stored text (a row's JSON doc), computed once per text instead of on every
 * read: a page of posts parsed and serialised again the same author profiles and feed docs on every
 * request (docs/performance.md, "Cost: where the uncached page of ten posts goes"). Each entry is
 * found by a key (the row's id) and used only while the text read now is equal to the one it was
 * derived from, so a changed row is derived again on its first read: nothing to invalidate, and
 * the answer is the same bytes as deriving it every time. At most `capacity` entries are kept (the
 * oldest written goes first); a miss costs what the read cost before, plus one comparison. An entry
 * holds its text: keep capacities small (a server's peak RSS has a target, docs/performance.md).
 */
export function derivedOnce<T>(derive: (key: string, text: string) => T, capacity: number): (key: string, text: string) => T {
  const entries = new Map<string, { text: string; value: T }>();
  return (key, text) => {
    const entry = entries.get(key);
    if (entry !== undefined && entry.text === text) return entry.value;
    const value = derive(key, text);
    if (entry === undefined && entries.size >= capacity) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(key, { text, value });
    return value;
  };
}
