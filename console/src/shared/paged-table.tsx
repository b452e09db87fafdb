import type { ComponentChildren } from 'preact';
import { Empty } from './states.js';

/** The paged list envelope every list of the API answers. */
export interface Page<R> {
  page: number;
  per_page: number;
  count: number;
  total_records: number;
  total_pages: number;
  has_next: boolean;
  records: R[];
}

export interface Column<R> {
  header: string;
  cell: (record: R) => ComponentChildren;
}

/** A table of one page of a list, with the API's totals and previous/next. Pages are 0-based, shown 1-based. */
export function PagedTable<R>({
  caption,
  page,
  columns,
  rowKey,
  onPage,
  empty,
}: {
  caption: string;
  page: Page<R>;
  columns: Column<R>[];
  rowKey: (record: R) => string;
  onPage: (page: number) => void;
  empty: ComponentChildren;
}) {
  if (page.total_records === 0) return <Empty>{empty}</Empty>;
  const first = page.page * page.per_page + 1;
  const last = page.page * page.per_page + page.count;
  return (
    <div class="paged">
      <div class="table-scroll">
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col" key={column.header}>
                  {column.header}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {page.records.map((record) => (
              <tr key={rowKey(record)}>
                {columns.map((column) => (
                  <td key={column.header} data-label={column.header}>
                    {column.cell(record)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label={`${caption} pages`}>
        <span class="pager-totals">
          {first}–{last} of {page.total_records} (page {page.page + 1} of {Math.max(page.total_pages, 1)})
        </span>
        <button type="button" disabled={page.page === 0} onClick={() => onPage(page.page - 1)}>
          Previous
        </button>
        <button type="button" disabled={!page.has_next} onClick={() => onPage(page.page + 1)}>
          Next
        </button>
      </nav>
    </div>
  );
}
