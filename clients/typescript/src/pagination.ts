import type { Client, MaybeOptionalInit } from 'openapi-fetch';
import { unwrap } from './errors.js';

type Json<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type OkBody<Operation> = Operation extends { responses: { 200: infer Response } } ? Json<Response> : never;
/** The paged list envelope (`data`) a list operation answers. */
export type PageOf<Operation> = OkBody<Operation> extends { data: infer Data extends { records: unknown[]; has_next: boolean } }
  ? Data
  : never;
type GetOf<Item> = Item extends { get: infer Operation } ? Operation : never;

/** The paths whose GET answers a paged list. */
export type ListPath<Paths> = {
  [P in keyof Paths]: [PageOf<GetOf<Paths[P]>>] extends [never] ? never : P;
}[keyof Paths];

/** One record of the list at a path. */
export type ListRecord<Paths, P extends keyof Paths> = PageOf<GetOf<Paths[P]>>['records'][number];

/** The options of a list call: its query (page included, where to start) and path parameters. */
export type ListInit<Paths, P extends keyof Paths> = Paths[P] extends infer Item extends { get: unknown }
  ? MaybeOptionalInit<Item, 'get'>
  : never;

/** The init argument of a list call: optional unless the path has parameters to fill. */
export type ListArgs<Paths, P extends keyof Paths> = undefined extends ListInit<Paths, P>
  ? [init?: ListInit<Paths, P>]
  : [init: ListInit<Paths, P>];

type Pageable = { params?: { query?: Record<string, unknown> } } & Record<string, unknown>;

/** Pages of a list, one GET each, from the requested page (default 0) until `has_next` is false. */
export async function* pagesOf<Paths extends {}, P extends ListPath<Paths>>(
  client: Client<Paths>,
  path: P,
  init?: ListInit<Paths, P>,
): AsyncGenerator<PageOf<GetOf<Paths[P]>>, void, undefined> {
  const base = (init ?? {}) as Pageable;
  let page = Number(base.params?.query?.page ?? 0);
  for (;;) {
    const options = { ...base, params: { ...base.params, query: { ...base.params?.query, page } } };
    // The path type is checked by the signature; openapi-fetch's own overloads cannot follow a generic path.
    const get = client.GET as unknown as (path: P, init: Pageable) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    const body = unwrap(await get(path, options)) as { data: PageOf<GetOf<Paths[P]>> };
    yield body.data;
    // An empty page that claims a next one would loop for ever: stop there.
    if (!body.data.has_next || body.data.records.length === 0) return;
    page += 1;
  }
}

/** Every record of a list, page after page. */
export async function* recordsOf<Paths extends {}, P extends ListPath<Paths>>(
  client: Client<Paths>,
  path: P,
  init?: ListInit<Paths, P>,
): AsyncGenerator<ListRecord<Paths, P>, void, undefined> {
  for await (const page of pagesOf(client, path, init)) yield* page.records as ListRecord<Paths, P>[];
}
