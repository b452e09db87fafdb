import type { ComponentChildren } from 'preact';
import type { Problem, RequestState } from './use-request.js';

export function Loading({ what }: { what: string }) {
  return <output class="state state-loading">Loading {what}…</output>;
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state state-empty">{children}</p>;
}

/** A failed call: the server's message and its hint, as text. */
export function ErrorState({ problem, retry }: { problem: Problem; retry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p class="error-message">{problem.message}</p>
      {problem.hint ? <p class="error-hint">{problem.hint}</p> : null}
      {retry ? (
        <button type="button" onClick={retry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** Renders a request's three states: loading, error (message and hint), or `children` with the data. */
export function Loaded<T>({ state, what, children }: { state: RequestState<T>; what: string; children: (data: T) => ComponentChildren }) {
  if (state.status === 'loading') return <Loading what={what} />;
  if (state.status === 'error') return <ErrorState problem={state.problem} retry={state.reload} />;
  return <>{children(state.data)}</>;
}
