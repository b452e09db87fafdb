/**
 * A one-argument function (a serialiser, a validator) compiled when it is first called instead of
 * when its module loads: compiling every schema up front was about a quarter of the start-up time,
 * and most processes (the CLI, a server answering a few kinds of request) never call most of them.
 */
export function compiledOnFirstCall<T, R>(compile: () => (value: T) => R): (value: T) => R {
  let compiled: ((value: T) => R) | undefined;
  return (value) => {
    compiled ??= compile();
    return compiled(value);
  };
}
