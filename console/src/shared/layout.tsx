import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { pages } from '../pages.js';
import { useSession } from '../session/session-context.js';

/** The signed-in frame: the community, the nav landmark with every page, sign out, and the page's main. */
export function Shell({ children }: { children: ComponentChildren }) {
  const { session, signOut } = useSession();
  const { path } = useLocation();
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <span class="community">
          <strong>{session.community.name}</strong> <span class="muted">({session.community.plan})</span>
        </span>
        <button type="button" class="signout" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav class="sidenav" aria-label="Console">
        <ul>
          {pages.map((page) => (
            <li key={page.path}>
              <a href={page.path} aria-current={isCurrent(path, page.path) ? 'page' : undefined}>
                {page.name}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}

const isCurrent = (path: string, pagePath: string) =>
  pagePath === '/console/' ? path === '/console/' || path === '/console' : path === pagePath || path.startsWith(`${pagePath}/`);

/** The page's one h1 (its name) and the document title. */
export function PageTitle({ name, children }: { name: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${name} · Community console`;
  }, [name]);
  return (
    <div class="page-head">
      <h1>{name}</h1>
      {children}
    </div>
  );
}
