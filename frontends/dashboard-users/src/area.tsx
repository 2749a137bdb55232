/**
 * Users of a project: search (display name, e-mail or id; debounced), sort and filters (list-options.ts), a
 * cursor-paged table that loads one page at a time (GET /users?cursor&limit&query — never the whole list, so it stays
 * fast at 1,000,000 users) with each user's actions (user-actions.tsx), and a user's detail page (user-detail.tsx).
 */
import { useState } from "react";
import type { ServerUser } from "@vestibule/js";
import { Avatar, Button, CursorTable, Link, Select, TextField, matchPath, navigate, useLoad, useLocation, useTitle, type AreaProps } from "@vestibule/ui";
import { useDebounced } from "@vestibule/ui/debounce";
import { CreateUserDialog } from "./create-user.tsx";
import { EMAIL, METHODS, MFA, NO_FILTERS, SHOW, SORTS, dateRangeError, isOption, listOptions, type SortValue, type TableFilters } from "./list-options.ts";
import { UserActions } from "./user-actions.tsx";
import { UserDetail } from "./user-detail.tsx";

export const PAGE_SIZE = 25;

/** "Yes"/"No" cells, with a badge for the states an owner looks for. */
function restrictionCell(u: ServerUser) {
  if (!u.isRestricted) return "No";
  return <span className="vs-badge">{u.restrictedReason?.type === "anonymous" ? "Anonymous" : u.restrictedReason?.type === "email_not_verified" ? "Unverified" : "Restricted"}</span>;
}

function UserList({ adminApp, basePath, project, areaHref }: AreaProps) {
  useTitle("Users · Vestibule");
  const { search } = useLocation();
  const [query, setQuery] = useState(search.get("q") ?? "");
  const debounced = useDebounced(query.trim(), 300);
  const [sort, setSort] = useState<SortValue>(() => {
    const v = search.get("sort");
    return isOption(SORTS, v) ? v : "signed-up-desc";
  });
  const [filters, setFilters] = useState<TableFilters>(() => {
    const v = search.get("show");
    return { ...NO_FILTERS, show: isOption(SHOW, v) ? v : "all" };
  });
  const set = (change: Partial<TableFilters>) => setFilters((f) => ({ ...f, ...change }));
  const filtered = JSON.stringify(filters) !== JSON.stringify(NO_FILTERS);
  const rangeError = dateRangeError(filters);
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  const [refresh, setRefresh] = useState(0);
  const domains = useLoad(async () => (await adminApp.getProject()).config.domains, [adminApp]);
  return (
    <div className="vs-stack">
      <div className="vs-spread">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Users</h1>
        <Button variant="primary" onClick={() => setCreating(true)}>
          Create user
        </Button>
      </div>
      <form role="search" onSubmit={(e) => e.preventDefault()} className="vs-stack" style={{ gap: 8 }}>
        <TextField label="Search users" type="search" placeholder="E-mail, name or user ID" value={query} onChange={setQuery} hint="Matches part of a name or e-mail address, or a whole user ID." />
        <div className="vs-grid-2">
          <Select label="Sort by" value={sort} onChange={(v) => isOption(SORTS, v) && setSort(v)} options={SORTS.map((o) => ({ ...o }))} />
          <Select label="Show" value={filters.show} onChange={(v) => isOption(SHOW, v) && set({ show: v })} options={SHOW.map((o) => ({ ...o }))} />
        </div>
        <fieldset style={{ border: 0, padding: 0, margin: 0, display: "grid", gridTemplateColumns: "repeat(auto-fit, minmax(150px, 1fr))", gap: 12 }}>
          <legend className="vs-sr-only">Filters</legend>
          <Select label="E-mail" value={filters.email} onChange={(v) => isOption(EMAIL, v) && set({ email: v })} options={EMAIL.map((o) => ({ ...o }))} />
          <Select label="Two-factor" value={filters.mfa} onChange={(v) => isOption(MFA, v) && set({ mfa: v })} options={MFA.map((o) => ({ ...o }))} />
          <Select label="Sign-in method" value={filters.method} onChange={(v) => isOption(METHODS, v) && set({ method: v })} options={METHODS.map((o) => ({ ...o }))} />
          <TextField label="Signed up from" type="date" value={filters.from} onChange={(v) => set({ from: v })} />
          <TextField label="Signed up until" type="date" value={filters.to} onChange={(v) => set({ to: v })} error={rangeError} />
        </fieldset>
        {filtered ? (
          <div>
            <Button small variant="ghost" onClick={() => setFilters(NO_FILTERS)}>
              Clear filters
            </Button>
          </div>
        ) : null}
      </form>
      <CursorTable<ServerUser>
        caption="Users"
        pageSize={PAGE_SIZE}
        resetKey={`${debounced}|${sort}|${JSON.stringify(filters)}|${version}`}
        refreshKey={refresh}
        fetchPage={async (cursor, limit) => {
          // One page per request, never the whole list; by default newest first with restricted users included.
          const users = await adminApp.listUsers({ ...listOptions(sort, filters), cursor: cursor ?? undefined, limit, query: debounced || undefined });
          return { items: users, nextCursor: users.nextCursor };
        }}
        rowKey={(u) => u.id}
        onRowClick={(u) => navigate(`${basePath}/${u.id}`)}
        empty={debounced ? `No user matches “${debounced}”${filtered ? " with these filters" : ""}.` : filtered ? "No user matches these filters." : "No users yet."}
        columns={[
          {
            key: "user",
            header: "User",
            render: (u) => (
              <span className="vs-row" style={{ flexWrap: "nowrap" }}>
                <Avatar name={u.displayName} email={u.primaryEmail} imageUrl={u.profileImageUrl} size={28} />
                <Link href={`${basePath}/${u.id}`} onClick={(e) => e.stopPropagation()} style={{ overflowWrap: "anywhere" }}>
                  {u.displayName ?? u.primaryEmail ?? u.id}
                </Link>
              </span>
            ),
          },
          { key: "email", header: "E-mail", render: (u) => u.primaryEmail ?? "—", hideOnPhone: true },
          { key: "verified", header: "Verified", render: (u) => (u.primaryEmailVerified ? "Yes" : "No"), hideOnPhone: true },
          { key: "restricted", header: "Restricted", render: restrictionCell, hideOnPhone: true },
          {
            key: "date",
            header: sort.startsWith("active") ? "Last active" : "Signed up",
            render: (u) => (sort.startsWith("active") ? u.lastActiveAt : u.signedUpAt).toLocaleDateString(),
            hideOnPhone: true,
          },
          {
            key: "actions",
            header: <span className="vs-sr-only">Actions</span>,
            render: (u) => (
              <UserActions
                user={u}
                projectId={project.id}
                domains={domains.value}
                areaHref={areaHref}
                onChanged={() => setRefresh((r) => r + 1)}
                onDeleted={() => setVersion((v) => v + 1)}
              />
            ),
          },
        ]}
      />
      <CreateUserDialog
        open={creating}
        onClose={() => setCreating(false)}
        adminApp={adminApp}
        onCreated={(id) => {
          setCreating(false);
          setVersion((v) => v + 1);
          navigate(`${basePath}/${id}`);
        }}
      />
    </div>
  );
}

export default function UsersArea(props: AreaProps) {
  const { pathname } = useLocation();
  const detail = matchPath(`${props.basePath}/:userId`, pathname);
  return detail ? <UserDetail {...props} userId={detail.userId!} /> : <UserList {...props} />;
}
