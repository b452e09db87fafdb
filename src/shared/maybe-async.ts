/**
 * Applies `next` to a value that may still be coming: synchronously when it is already there, so
 * that the hot path of a request (a cached key, an in-memory counter) costs no promise, and after
 * the promise otherwise.
 */
export function andThen<T, R>(value: T | Promise<T>, next: (settled: T) => R): R | Promise<Awaited<R>> {
  return value instanceof Promise ? (value.then(next) as Promise<Awaited<R>>) : next(value);
}
