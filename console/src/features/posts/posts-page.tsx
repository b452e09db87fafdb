import { useState } from 'preact/hooks';
import { useClient } from '../../session/session-context.js';
import { DateTime } from '../../shared/date-time.js';
import { Field } from '../../shared/field.js';
import { PageTitle } from '../../shared/layout.js';
import { PagedTable } from '../../shared/paged-table.js';
import { Loaded } from '../../shared/states.js';
import { useRequest } from '../../shared/use-request.js';
import { listFeeds, listPosts, searchPosts } from './posts.data.js';

export function PostsPage() {
  const client = useClient();
  const [feedId, setFeedId] = useState('home');
  const [page, setPage] = useState(0);
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState<{ q: string; page: number } | null>(null);
  const feeds = useRequest(() => listFeeds(client), []);
  const posts = useRequest(() => listPosts(client, feedId, page), [feedId, page]);
  const hits = useRequest(() => (query ? searchPosts(client, query.q, query.page) : Promise.resolve(null)), [query?.q, query?.page]);

  return (
    <>
      <PageTitle name="Posts" />
      <section aria-labelledby="search-title" class="card">
        <h2 id="search-title">Search posts</h2>
        <form
          aria-label="Search posts"
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            setQuery(draft.trim() ? { q: draft.trim(), page: 0 } : null);
          }}
        >
          <Field label="Words to find">
            {(p) => <input {...p} type="search" value={draft} maxLength={200} onInput={(e) => setDraft(e.currentTarget.value)} />}
          </Field>
          <button type="submit" class="primary">
            Search
          </button>
        </form>
        {query ? (
          <Loaded state={hits} what="results">
            {(result) =>
              result ? (
                <PagedTable
                  caption={`Posts matching “${query.q}”`}
                  page={result}
                  rowKey={(hit) => hit.id}
                  onPage={(n) => setQuery({ ...query, page: n })}
                  empty={`No post matches “${query.q}”.`}
                  columns={[
                    { header: 'Title', cell: (hit) => hit.title || '(untitled)' },
                    { header: 'Feed', cell: (hit) => hit.feed?.label ?? '' },
                    { header: 'Posted', cell: (hit) => <DateTime value={hit.created_at} /> },
                  ]}
                />
              ) : null
            }
          </Loaded>
        ) : null}
      </section>
      <section aria-labelledby="feed-title">
        <h2 id="feed-title">A feed’s posts</h2>
        <Loaded state={feeds} what="feeds">
          {(list) => (
            <Field label="Feed">
              {(p) => (
                <select
                  {...p}
                  value={feedId}
                  onChange={(e) => {
                    setFeedId(e.currentTarget.value);
                    setPage(0);
                  }}
                >
                  <option value="home">Home (every feed)</option>
                  {list.map((feed) => (
                    <option key={feed.id} value={feed.id}>
                      {feed.emoji_icon ? `${feed.emoji_icon} ` : ''}
                      {feed.label}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
        </Loaded>
        <Loaded state={posts} what="posts">
          {(result) => (
            <PagedTable
              caption="Posts"
              page={result}
              rowKey={(post) => post.id}
              onPage={setPage}
              empty="This feed has no posts."
              columns={[
                { header: 'Title', cell: (post) => post.title || '(untitled)' },
                { header: 'Author', cell: (post) => post.author?.preferred_name ?? '' },
                { header: 'Comments', cell: (post) => String(post.comments_count ?? 0) },
                { header: 'Posted', cell: (post) => <DateTime value={post.created_at} /> },
              ]}
            />
          )}
        </Loaded>
      </section>
    </>
  );
}
