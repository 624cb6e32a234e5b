// The console's lists: a table where there is room and one card a row on a
// narrow screen (every cell carries its column's name in data-label, which the
// stylesheet shows beside it), with sortable columns marked for assistive
// technology (aria-sort) and linked to the list sorted by them.
import { html, type SafeHtml } from '../../html/html.js';

export interface Column<T> {
  label: string;
  cell: (row: T) => SafeHtml | string;
  /** The `sort` value of a column the list can be sorted by. */
  sort?: string;
  /** A data attribute on the cell (tests and scripts find a row's state by it). */
  data?: string;
}

/** How the list is sorted now, and how to link to it sorted otherwise. */
export interface Sorting {
  by: string;
  dir: 'asc' | 'desc';
  /** The list's URL with these query parameters. */
  href: (query: { sort: string; dir: 'asc' | 'desc' }) => string;
}

/** The sorting of the list at `path` with `query` (search terms kept), sorted now by `by` in `dir`. */
export function listSorting(path: string, query: Record<string, string>, by: string, dir: 'asc' | 'desc'): Sorting {
  return { by, dir, href: (s) => `${path}?${new URLSearchParams({ ...query, ...s }).toString()}` };
}

/** The hidden fields that keep a list's order when its search form is sent. */
export const sortingFields = (s: Sorting): SafeHtml => html`<input type="hidden" name="sort" value="${s.by}"><input type="hidden" name="dir" value="${s.dir}">`;

function header<T>(c: Column<T>, sorting: Sorting | undefined): SafeHtml {
  if (!c.sort || !sorting) return html`<th scope="col">${c.label}</th>`;
  const current = sorting.by === c.sort;
  const next = current && sorting.dir === 'asc' ? 'desc' : 'asc';
  const mark = current ? (sorting.dir === 'asc' ? ' ▲' : ' ▼') : '';
  return html`<th scope="col"${current ? html` aria-sort="${sorting.dir === 'asc' ? 'ascending' : 'descending'}"` : ''}><a href="${sorting.href({ sort: c.sort, dir: next })}">${c.label}<span aria-hidden="true">${mark}</span></a></th>`;
}

export function dataTable<T>(label: string, columns: readonly Column<T>[], rows: readonly T[], rowAttrs: (row: T) => SafeHtml, sorting?: Sorting): SafeHtml {
  return html`<table class="data" aria-label="${label}"><thead><tr>${columns.map((c) => header(c, sorting))}</tr></thead>
<tbody>${rows.map(
    (r) => html`<tr ${rowAttrs(r)}>${columns.map((c) => html`<td data-label="${c.label}"${c.data ? html` ${c.data}` : ''}>${c.cell(r)}</td>`)}</tr>`,
  )}</tbody></table>`;
}
