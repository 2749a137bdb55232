/**
 * Tables for the dashboard. <CursorTable> pages through a cursor-paginated list (GET /users: `next_cursor` is the id of
 * the first item of the next page): it keeps only the current page and the cursors of the pages before it, so a list of
 * 1,000,000 users costs one page of memory and one request per page. Rows have a fixed height and a loading page
 * shows skeleton rows of the same size, so nothing moves when data arrives.
 */
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Button, Skeleton } from "./components.tsx";
import { ErrorAlert } from "./error-alert.tsx";

export interface Column<T> {
  readonly key: string;
  readonly header: ReactNode;
  readonly render: (row: T) => ReactNode;
  readonly width?: string;
  readonly hideOnPhone?: boolean;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

export function Table<T>({
  columns,
  rows,
  rowKey,
  onRowClick,
  loadingRows = 0,
  caption,
  empty,
}: {
  columns: readonly Column<T>[];
  rows: readonly T[];
  rowKey: (row: T) => string;
  onRowClick?: (row: T) => void;
  loadingRows?: number;
  caption: string;
  empty?: ReactNode;
}) {
  return (
    <div className="vs-table-wrap">
      <table className="vs-table">
        <caption className="vs-sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.key} scope="col" style={c.width ? { width: c.width } : undefined} className={c.hideOnPhone ? "vs-hide-phone" : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {loadingRows > 0
            ? Array.from({ length: loadingRows }, (_, i) => (
                <tr key={`s${i}`} aria-hidden="true">
                  {columns.map((c) => (
                    <td key={c.key} className={c.hideOnPhone ? "vs-hide-phone" : undefined}>
                      <Skeleton width="70%" />
                    </td>
                  ))}
                </tr>
              ))
            : rows.map((r) => (
                <tr
                  key={rowKey(r)}
                  data-clickable={onRowClick ? "" : undefined}
                  onClick={onRowClick ? () => onRowClick(r) : undefined}
                >
                  {columns.map((c) => (
                    <td key={c.key} className={c.hideOnPhone ? "vs-hide-phone" : undefined}>
                      {c.render(r)}
                    </td>
                  ))}
                </tr>
              ))}
          {loadingRows === 0 && rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="vs-muted">
                {empty ?? "Nothing here yet."}
              </td>
            </tr>
          ) : null}
        </tbody>
      </table>
    </div>
  );
}

export function CursorTable<T>({
  fetchPage,
  pageSize,
  resetKey,
  refreshKey = 0,
  ...table
}: {
  fetchPage: (cursor: string | null, limit: number) => Promise<Page<T>>;
  pageSize: number;
  /** Changing it (e.g. a new search) starts again at the first page. */
  resetKey: string;
  /** Changing it reloads the page shown, in place (its rows stay until the new ones arrive), e.g. after an edit. */
  refreshKey?: number;
  columns: readonly Column<T>[];
  rowKey: (row: T) => string;
  onRowClick?: (row: T) => void;
  caption: string;
  empty?: ReactNode;
}) {
  // cursors[i] = the cursor of page i (null for the first page).
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<Page<T> | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const seq = useRef(0);
  const fetchRef = useRef(fetchPage);
  fetchRef.current = fetchPage;

  const load = async (cursor: string | null, index: number, base: (string | null)[]) => {
    const mine = ++seq.current;
    setLoading(true);
    setError(null);
    try {
      const p = await fetchRef.current(cursor, pageSize);
      if (mine !== seq.current) return;
      setPage(p);
      setCursors(base.slice(0, index + 1));
    } catch (err) {
      if (mine === seq.current) setError(err);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  };

  useEffect(() => {
    setPage(null);
    void load(null, 0, [null]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [resetKey, pageSize]);

  const shownRefresh = useRef(refreshKey);
  useEffect(() => {
    if (shownRefresh.current === refreshKey) return;
    shownRefresh.current = refreshKey;
    void load(cursors[cursors.length - 1] ?? null, cursors.length - 1, cursors);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [refreshKey]);

  const index = cursors.length - 1;
  const shownRows = page?.items ?? [];
  return (
    <div className="vs-stack" style={{ gap: 8 }}>
      <ErrorAlert error={error} />
      <Table {...table} rows={shownRows} loadingRows={loading && !page ? Math.min(pageSize, 10) : 0} />
      <div className="vs-spread">
        <span className="vs-muted" aria-live="polite">
          {loading ? "Loading…" : `Page ${index + 1}${page ? ` · ${page.items.length} shown` : ""}`}
        </span>
        <div className="vs-row">
          <Button small disabled={index === 0 || loading} onClick={() => void load(cursors[index - 1] ?? null, index - 1, cursors)}>
            Previous page
          </Button>
          <Button
            small
            disabled={!page?.nextCursor || loading}
            onClick={() => {
              const next = page!.nextCursor!;
              void load(next, index + 1, [...cursors, next]);
            }}
          >
            Next page
          </Button>
        </div>
      </div>
    </div>
  );
}
