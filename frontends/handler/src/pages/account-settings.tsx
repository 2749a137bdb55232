import { useState, type ReactNode } from "react";
import { AFTER_AUTH_RETURN_TO_PARAM, safeReturnTo, type CurrentUser, type Project } from "@vestibule/js";
import { useProject, useUser } from "@vestibule/react";
import { AsyncSection, Button, Skeleton, TabList, navigate, tabPanelProps, useAction, useLocation } from "@vestibule/ui";
import { AuthCard } from "../layout.tsx";
import { ProfileSection } from "../account/profile.tsx";
import { EmailsSection } from "../account/emails.tsx";
import { PasswordSection } from "../account/password.tsx";
import { TwoFactorSection } from "../account/two-factor.tsx";
import { PasskeysSection } from "../account/passkeys.tsx";
import { SessionsSection } from "../account/sessions.tsx";
import { TeamsSection } from "../account/teams.tsx";
import { ApiKeysSection } from "../account/api-keys.tsx";
import { NotificationsSection } from "../account/notifications.tsx";
import { DeleteAccountSection } from "../account/delete-account.tsx";
import { LinkedAccountsSection } from "../account/linked-accounts.tsx";

interface Tab {
  readonly id: string;
  readonly title: string;
  readonly show: (p: Project) => boolean;
  readonly render: (user: CurrentUser, project: Project) => ReactNode;
}

const TABS: readonly Tab[] = [
  { id: "profile", title: "Profile", show: () => true, render: (u) => <ProfileSection user={u} /> },
  { id: "emails", title: "E-mails", show: () => true, render: (u) => <EmailsSection user={u} /> },
  { id: "password", title: "Password", show: (p) => p.config.credentialEnabled, render: (u) => <PasswordSection user={u} /> },
  { id: "passkeys", title: "Passkeys", show: (p) => p.config.passkeyEnabled, render: (u) => <PasskeysSection user={u} /> },
  { id: "linked-accounts", title: "Linked accounts", show: (p) => p.config.oauthProviders.length > 0, render: (u, p) => <LinkedAccountsSection user={u} project={p} /> },
  { id: "two-factor", title: "Two-factor", show: () => true, render: (u, p) => <TwoFactorSection user={u} projectName={p.displayName} /> },
  { id: "sessions", title: "Sessions", show: () => true, render: (u) => <SessionsSection user={u} /> },
  { id: "teams", title: "Teams", show: () => true, render: (u, p) => <TeamsSection user={u} project={p} /> },
  { id: "api-keys", title: "API keys", show: (p) => p.config.allowUserApiKeys, render: (u) => <ApiKeysSection user={u} /> },
  { id: "notifications", title: "Notifications", show: () => true, render: (u) => <NotificationsSection user={u} /> },
  { id: "delete", title: "Delete account", show: (p) => p.config.clientUserDeletionEnabled, render: (u) => <DeleteAccountSection user={u} /> },
];

const RETURN_KEY = "vestibule-account-return-to";

/**
 * Where "Back to the app" goes: a same-origin `after_auth_return_to`, else the page the visitor came from when it is
 * not one of these pages (the app that linked here), remembered for the tab so switching sections keeps it; null when
 * neither is known (the link is not shown).
 */
export function appReturnHref(search: URLSearchParams, currentHref: string, referrer: string, remembered: string | null): string | null {
  const fromParam = safeReturnTo(search.get(AFTER_AUTH_RETURN_TO_PARAM), currentHref);
  if (fromParam) return fromParam;
  if (remembered) return remembered;
  try {
    const from = new URL(referrer);
    const here = new URL(currentHref);
    if ((from.protocol === "https:" || from.protocol === "http:") && !(from.origin === here.origin && from.pathname.startsWith("/handler"))) return from.href;
  } catch {
    // no or unparsable referrer
  }
  return null;
}

function useAppReturnHref(search: URLSearchParams): string | null {
  const [href] = useState(() => {
    const remembered = sessionStorage.getItem(RETURN_KEY);
    const found = appReturnHref(search, location.href, document.referrer, remembered);
    if (found) sessionStorage.setItem(RETURN_KEY, found);
    return found;
  });
  return href;
}

/** The signed-in user's settings, one tab per topic (`?tab=`); a signed-out visitor is sent to sign in and back. */
export default function AccountSettings() {
  // A signed-out visitor is sent to sign in (and back here afterwards); the page waits meanwhile.
  const u = useUser({ or: "redirect" });
  const p = useProject();
  const { search, pathname } = useLocation();
  const [, force] = useState(0);
  const back = useAppReturnHref(search);
  const [signOut, signOutState] = useAction(() => u.signOut());
  const tabs = TABS.filter((t) => t.show(p));
  const active = tabs.find((t) => t.id === search.get("tab")) ?? tabs[0]!;
  const select = (id: string) => {
    navigate(`${pathname}?tab=${id}`, { replace: true });
    force((n) => n + 1);
  };
  return (
    <AuthCard title="Account settings" subtitle={u.primaryEmail ?? undefined} wide>
      <div className="vs-spread" style={{ flexWrap: "wrap", gap: 8 }}>
        {back ? (
          <a className="vs-btn vs-btn-ghost vs-btn-small" href={back} data-testid="back-to-app">
            ← Back to the app
          </a>
        ) : (
          <span />
        )}
        <Button small loading={signOutState.pending} onClick={() => void signOut()}>
          Sign out
        </Button>
      </div>
      <TabList label="Settings sections" idPrefix="settings" tabs={tabs} active={active.id} onSelect={select} />
      <section {...tabPanelProps("settings", active.id)} className="vs-section" style={{ minHeight: 280 }}>
        {/* Sections read cached lists with suspending hooks: only the panel waits (a placeholder of its size) or fails. */}
        <AsyncSection key={active.id} fallback={<SectionSkeleton />}>
          {active.render(u, p)}
        </AsyncSection>
      </section>
    </AuthCard>
  );
}

export function SectionSkeleton() {
  return (
    <div className="vs-stack" aria-busy="true">
      <Skeleton height={20} width="40%" />
      <Skeleton height={40} />
      <Skeleton height={40} />
    </div>
  );
}
