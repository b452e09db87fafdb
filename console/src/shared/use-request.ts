import { AdminApiError } from '@community-admin/client';
import { useCallback, useEffect, useState } from 'preact/hooks';

/** What a failed call shows: the envelope's message and hint when the server sent one. */
export interface Problem {
  message: string;
  hint: string;
  code: string;
}

export function problemOf(error: unknown): Problem {
  if (error instanceof AdminApiError) return { message: error.message, hint: error.hint, code: error.code };
  if (error instanceof Error) return { message: error.message, hint: 'Check that the server is running, then try again.', code: 'network' };
  return { message: String(error), hint: '', code: 'unknown' };
}

export type RequestState<T> =
  | { status: 'loading'; reload: () => void }
  | { status: 'ok'; data: T; reload: () => void }
  | { status: 'error'; problem: Problem; reload: () => void };

/** Runs `load` when `deps` change (and on reload), dropping answers that arrive after a newer request. */
export function useRequest<T>(load: () => Promise<T>, deps: readonly unknown[]): RequestState<T> {
  const [state, setState] = useState<{ status: 'loading' } | { status: 'ok'; data: T } | { status: 'error'; problem: Problem }>({
    status: 'loading',
  });
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  useEffect(() => {
    let current = true;
    setState({ status: 'loading' });
    load().then(
      (data) => current && setState({ status: 'ok', data }),
      (error: unknown) => current && setState({ status: 'error', problem: problemOf(error) }),
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  return { ...state, reload } as RequestState<T>;
}
