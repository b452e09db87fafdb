/**
 * Values per `in (...)` list, and rows per multi-row insert of a few columns: far under the bound
 * parameters either engine allows (SQLite 32766, PostgreSQL 65535), and one prepared statement
 * shape per batch length stays cheap to cache.
 */
const batchSize = 500;

/** `values` cut in consecutive slices of at most `size`, in order. */
export function batchesOf<T>(values: readonly T[], size = batchSize): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < values.length; i += size) batches.push(values.slice(i, i + size));
  return batches;
}

/**
 * The rows of a lookup by a list of values (`where x in (...)`), run once per batch of the distinct
 * values, rows in batch order. One batch (the usual case) is one call with no copying.
 */
export async function selectInBatches<V, R>(
  values: readonly V[],
  select: (batch: readonly V[]) => Promise<readonly R[]>,
  size = batchSize,
): Promise<readonly R[]> {
  const unique = [...new Set(values)];
  if (unique.length <= size) return unique.length === 0 ? [] : select(unique);
  const rows: R[] = [];
  for (const batch of batchesOf(unique, size)) rows.push(...(await select(batch)));
  return rows;
}
