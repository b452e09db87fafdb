import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router } from 'preact-iso';
import { ActivityPage } from './features/activity/activity-page.js';
import { ApiKeysPage } from './features/api-keys/api-keys-page.js';
import { AwardsPage } from './features/awards/awards-page.js';
import { EventsPage } from './features/events/events-page.js';
import { FilesPage } from './features/files/files-page.js';
import { MembersPage } from './features/members/members-page.js';
import { NotFoundPage } from './features/not-found/not-found-page.js';
import { OverviewPage } from './features/overview/overview-page.js';
import { PostsPage } from './features/posts/posts-page.js';
import { SlackPage } from './features/slack/slack-page.js';
import { WebhooksPage } from './features/webhooks/webhooks-page.js';
import { clearSession, clientFor, loadSession, revokeSessionKey, type Session, saveSession } from './session/session.js';
import { SessionContext, type SessionValue } from './session/session-context.js';
import { exchangeToken, forgetFragment, tokenFromFragment } from './session/sign-in.js';
import { LinkRefusedPage, SignedOutPage, SigningInPage } from './session/signed-out-pages.js';
import { Shell } from './shared/layout.js';
import { type Problem, problemOf } from './shared/use-request.js';

type Gate =
  | { state: 'signing-in' }
  | { state: 'refused'; problem: Problem }
  | { state: 'signed-out'; ended?: boolean }
  | { state: 'in'; session: Session };

function initialGate(): Gate {
  if (tokenFromFragment(window.location.hash)) return { state: 'signing-in' };
  const session = loadSession();
  return session ? { state: 'in', session } : { state: 'signed-out' };
}

export function App() {
  const [gate, setGate] = useState<Gate>(initialGate);

  useEffect(() => {
    const token = tokenFromFragment(window.location.hash);
    if (!token) return;
    // Out of the address bar before anything else, so it is never left in history or shared by copy.
    forgetFragment();
    exchangeToken(token).then(
      (session) => {
        saveSession(session);
        setGate({ state: 'in', session });
      },
      (error: unknown) => setGate({ state: 'refused', problem: problemOf(error) }),
    );
  }, []);

  const value = useMemo<SessionValue | null>(() => {
    if (gate.state !== 'in') return null;
    const client = clientFor(gate.session, () => {
      clearSession();
      setGate({ state: 'signed-out', ended: true });
    });
    return {
      session: gate.session,
      client,
      async signOut() {
        // Revokes the session's own key; the storage is cleared even when the server cannot be reached.
        try {
          await revokeSessionKey(client, gate.session);
        } catch {
          // Unreachable server: the key still expires on its own; the tab forgets it either way.
        } finally {
          clearSession();
          setGate({ state: 'signed-out' });
        }
      },
    };
  }, [gate]);

  if (gate.state === 'signing-in') return <SigningInPage />;
  if (gate.state === 'refused') return <LinkRefusedPage problem={gate.problem} />;
  if (gate.state === 'signed-out' || !value) return <SignedOutPage ended={gate.state === 'signed-out' && gate.ended === true} />;
  return (
    <SessionContext.Provider value={value}>
      <LocationProvider>
        <Shell>
          <Router>
            <Route path="/console/" component={OverviewPage} />
            <Route path="/console/events" component={EventsPage} />
            <Route path="/console/members" component={MembersPage} />
            <Route path="/console/posts" component={PostsPage} />
            <Route path="/console/files" component={FilesPage} />
            <Route path="/console/awards" component={AwardsPage} />
            <Route path="/console/api-keys" component={ApiKeysPage} />
            <Route path="/console/webhooks" component={WebhooksPage} />
            <Route path="/console/slack" component={SlackPage} />
            <Route path="/console/activity" component={ActivityPage} />
            <Route default component={NotFoundPage} />
          </Router>
        </Shell>
      </LocationProvider>
    </SessionContext.Provider>
  );
}
