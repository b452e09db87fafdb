import { useEffect } from 'preact/hooks';
import type { Problem } from '../shared/use-request.js';

const linkCommand = 'npx community-admin console link --community <id>';

function Frame({ title, children }: { title: string; children: preact.ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Community console`;
  }, [title]);
  return (
    <main id="main" class="signed-out">
      <h1>{title}</h1>
      {children}
    </main>
  );
}

function HowToGetALink() {
  return (
    <p>
      Ask the server's operator for a new link, or make one where the server runs: <code>{linkCommand}</code>
    </p>
  );
}

/** No session and no link: how to sign in. */
export function SignedOutPage({ ended = false }: { ended?: boolean }) {
  return (
    <Frame title="Sign in">
      {ended ? (
        <p class="state state-error" role="alert">
          Your console session has ended: it expired or its key was revoked.
        </p>
      ) : null}
      <p>The console signs in with a one-time link; no password is kept here.</p>
      <HowToGetALink />
    </Frame>
  );
}

export function SigningInPage() {
  return (
    <Frame title="Signing in">
      <output>Checking the link…</output>
    </Frame>
  );
}

/** A link refused (used, expired or unknown): what the server said, and how to get a new one. */
export function LinkRefusedPage({ problem }: { problem: Problem }) {
  return (
    <Frame title="This sign-in link does not work">
      <p>A console link works once and expires: this one was already used, has expired, or is unknown.</p>
      <div class="state state-error" role="alert">
        <p class="error-message">{problem.message}</p>
        {problem.hint ? <p class="error-hint">{problem.hint}</p> : null}
      </div>
      <HowToGetALink />
    </Frame>
  );
}
