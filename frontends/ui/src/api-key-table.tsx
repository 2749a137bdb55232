import type { ReactNode } from "react";
import { useAction } from "./components.tsx";
import { ErrorAlert } from "./error-alert.tsx";
import { Table, type Column } from "./data-table.tsx";

/** What every kind of API key (a user's, a team's, a project's internal key set) shows in a listing. */
export interface ListedApiKey {
  readonly id: string;
  readonly description: string;
  readonly expiresAt?: Date | null;
  isValid(): boolean;
  whyInvalid(): string | null;
  revoke(): Promise<void>;
}

/** The revoke action of one listed key, for the caller's control (a button, a confirmation). */
export interface RevokeAction {
  run(): Promise<unknown>;
  readonly pending: boolean;
}

/**
 * The one API-key listing (account settings and the dashboard): the load or revoke error, then a table of description,
 * the key columns the caller names, expiry, status (Active / Expired / Revoked) and, for a valid key, the caller's
 * revoke control. Revoking reloads the list.
 */
export function ApiKeyTable<K extends ListedApiKey>({
  caption,
  keys,
  loadingRows,
  keyColumns,
  expiresHideOnPhone = false,
  revokeControl,
}: {
  caption: string;
  keys: { status: "loading" | "ok" | "error"; value: readonly K[] | undefined; error: unknown; reload: () => Promise<void> };
  loadingRows: number;
  keyColumns: readonly Column<K>[];
  expiresHideOnPhone?: boolean;
  revokeControl: (key: K, revoke: RevokeAction) => ReactNode;
}) {
  const [revoke, revokeState] = useAction(async (key: K) => {
    await key.revoke();
    await keys.reload();
  });
  const columns: Column<K>[] = [
    { key: "d", header: "Description", render: (k) => k.description || "—" },
    ...keyColumns,
    { key: "e", header: "Expires", render: (k) => k.expiresAt?.toLocaleDateString() ?? "Never", hideOnPhone: expiresHideOnPhone },
    { key: "st", header: "Status", render: (k) => (k.isValid() ? <span className="vs-badge vs-badge-ok">Active</span> : <span className="vs-badge">{k.whyInvalid() === "expired" ? "Expired" : "Revoked"}</span>) },
    { key: "x", header: <span className="vs-sr-only">Actions</span>, render: (k) => (k.isValid() ? revokeControl(k, { run: () => revoke(k), pending: revokeState.pending }) : null) },
  ];
  return (
    <>
      <ErrorAlert error={keys.error ?? revokeState.error} />
      <Table
        caption={caption}
        rows={keys.value ?? []}
        loadingRows={keys.status === "loading" ? loadingRows : 0}
        rowKey={(k) => k.id}
        empty="No API keys yet."
        columns={columns}
      />
    </>
  );
}
