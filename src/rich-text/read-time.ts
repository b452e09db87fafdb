const WORDS_PER_MINUTE = 200;

/** Minutes to read the text at 200 words a minute, rounded up: 0 only when it has no words. */
export function readTimeMinutes(plaintext: string): number {
  // Counting with a regex, not split(): no array of every word for a long post.
  const words = plaintext.match(/\S+/g)?.length ?? 0;
  return Math.ceil(words / WORDS_PER_MINUTE);
}
