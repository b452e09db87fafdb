import { PageTitle } from '../../shared/layout.js';

/** Any path under /console/ that names no page. */
export const NotFoundPage = () => (
  <>
    <PageTitle name="Page not found" />
    <p>
      There is no such page in the console. <a href="/console/">Go to the overview</a>.
    </p>
  </>
);
