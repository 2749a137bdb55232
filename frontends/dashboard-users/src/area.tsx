/**
 * Users of a project: search (display name, e-mail or id; debounced), a cursor-paged table that loads one page at a
 * time (GET /users?cursor&limit&query — never the whole list, so it stays fast at 1,000,000 users), and a user's
 * detail page: profile, metadata (client, client read-only, server) as JSON, impersonation and deletion.
 */
import { useEffect, useState } from "react";
import type { ServerUser } from "@vestibule/js";
import { Avatar, Button, CursorTable, Link, TextField, matchPath, navigate, useLocation, useTitle, type AreaProps } from "@vestibule/ui";
import { CreateUserDialog } from "./create-user.tsx";
import { UserDetail } from "./user-detail.tsx";

export const PAGE_SIZE = 25;

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

function UserList({ adminApp, basePath }: AreaProps) {
  useTitle("Users · Vestibule");
  const { search } = useLocation();
  const [query, setQuery] = useState(search.get("q") ?? "");
  const debounced = useDebounced(query.trim(), 300);
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);
  return (
    <div className="vs-stack">
      <div className="vs-spread">
        <h1 style={{ margin: 0, fontSize: "1.5rem" }}>Users</h1>
        <Button variant="primary" onClick={() => setCreating(true)}>
          Create user
        </Button>
      </div>
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <TextField label="Search users" type="search" placeholder="E-mail, name or user ID" value={query} onChange={setQuery} hint="Matches part of a name or e-mail address, or a whole user ID." />
      </form>
      <CursorTable<ServerUser>
        caption="Users"
        pageSize={PAGE_SIZE}
        resetKey={`${debounced}|${version}`}
        fetchPage={async (cursor, limit) => {
          // Newest first, as people look for recent sign-ups; one page per request, never the whole list.
          // Restricted users are listed too (the detail page shows and edits the restriction).
          const users = await adminApp.listUsers({ cursor: cursor ?? undefined, limit, query: debounced || undefined, orderBy: "signedUpAt", desc: true, includeRestricted: true });
          return { items: users, nextCursor: users.nextCursor };
        }}
        rowKey={(u) => u.id}
        onRowClick={(u) => navigate(`${basePath}/${u.id}`)}
        empty={debounced ? `No user matches “${debounced}”.` : "No users yet."}
        columns={[
          {
            key: "user",
            header: "User",
            render: (u) => (
              <span className="vs-row" style={{ flexWrap: "nowrap" }}>
                <Avatar name={u.displayName} email={u.primaryEmail} imageUrl={u.profileImageUrl} size={28} />
                <Link href={`${basePath}/${u.id}`} onClick={(e) => e.stopPropagation()}>
                  {u.displayName ?? u.primaryEmail ?? u.id}
                </Link>
              </span>
            ),
          },
          { key: "email", header: "E-mail", render: (u) => u.primaryEmail ?? "—", hideOnPhone: true },
          { key: "verified", header: "Verified", render: (u) => (u.primaryEmailVerified ? "Yes" : "No"), hideOnPhone: true },
          { key: "restricted", header: "Restricted", render: (u) => (u.isRestricted ? "Yes" : "No"), hideOnPhone: true },
          { key: "signed-up", header: "Signed up", render: (u) => u.signedUpAt.toLocaleDateString(), hideOnPhone: true },
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
