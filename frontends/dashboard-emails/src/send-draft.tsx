/**
 * Sending a draft to a segment of the project's users (POST /emails/send-email with draft_id): all users, users with a
 * verified e-mail, or users named by e-mail or id. The dialog counts the recipients, asks "Send to N users?", sends,
 * and says how many e-mails went out. Sending to users needs the project's own SMTP server (the contract's rule).
 */
import { useState } from "react";
import type { ServerUser, StackAdminApp } from "@vestibule/js";
import { Alert, Button, Dialog, ErrorAlert, Progress, Select, TextArea, useAction, useLoad } from "@vestibule/ui";
import { useDebounced } from "@vestibule/ui/debounce";

type Segment = "all" | "verified" | "listed";

const PAGE = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every user the server's `all_users` reaches (registered, restricted included), optionally only verified ones. */
async function everyUser(adminApp: StackAdminApp, verifiedOnly: boolean): Promise<ServerUser[]> {
  const out: ServerUser[] = [];
  let cursor: string | undefined;
  do {
    const page = await adminApp.listUsers({ limit: PAGE, cursor, includeRestricted: true, ...(verifiedOnly ? { emailVerified: true } : {}) });
    out.push(...page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/** The users an owner listed by e-mail or id, and the entries that matched nobody. */
async function listedUsers(adminApp: StackAdminApp, text: string): Promise<{ users: ServerUser[]; unknown: string[] }> {
  const entries = [...new Set(text.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean))];
  const users = new Map<string, ServerUser>();
  const unknown: string[] = [];
  for (const entry of entries) {
    let user: ServerUser | null | undefined;
    if (UUID.test(entry)) user = await adminApp.getUser(entry);
    else user = (await adminApp.listUsers({ query: entry, includeRestricted: true, limit: 20 })).find((u) => u.primaryEmail?.toLowerCase() === entry.toLowerCase());
    if (user) users.set(user.id, user);
    else unknown.push(entry);
  }
  return { users: [...users.values()], unknown };
}

const usersWord = (n: number) => `${n} ${n === 1 ? "user" : "users"}`;

/** The outcome of a send in a sentence (the server sends nothing to a user without a primary e-mail). */
export function sentSentence(users: readonly { primaryEmail: string | null }[]): string {
  const sent = users.filter((u) => u.primaryEmail).length;
  const skipped = users.length - sent;
  const head = sent === 0 ? "Nothing was sent" : `Sent to ${usersWord(sent)}`;
  const tail = skipped === 0 ? "" : `; ${usersWord(skipped)} without an e-mail address got nothing`;
  return `${head}${tail}. Delivery shows in the Sent tab.`;
}

export function SendDraft({ adminApp, draft, onSent }: { adminApp: StackAdminApp; draft: { id: string; displayName: string }; onSent: () => void }) {
  const [open, setOpen] = useState(false);
  const [segment, setSegment] = useState<Segment>("all");
  const [listed, setListed] = useState("");
  const settledList = useDebounced(listed, 400);
  const [confirming, setConfirming] = useState(false);
  const [outcome, setOutcome] = useState<string | null>(null);
  const project = useLoad(async () => (open ? adminApp.getProject() : null), [adminApp, open]);
  const sharedSender = ((project.value?.config.emailConfig as { type?: string } | undefined)?.type ?? "shared") === "shared";
  const recipients = useLoad(async () => {
    if (!open) return null;
    if (segment === "listed") return listedUsers(adminApp, settledList);
    return { users: await everyUser(adminApp, segment === "verified"), unknown: [] };
  }, [adminApp, open, segment, segment === "listed" ? settledList : ""]);
  const count = recipients.value?.users.length ?? 0;
  const [send, sendState] = useAction(async () => {
    const users = recipients.value?.users ?? [];
    await adminApp.sendEmail(segment === "all" ? { allUsers: true, draftId: draft.id } : { userIds: users.map((u) => u.id), draftId: draft.id });
    setConfirming(false);
    setOutcome(sentSentence(users));
    onSent();
  });
  const close = () => {
    setOpen(false);
    setConfirming(false);
    setOutcome(null);
    sendState.reset();
  };
  const ready = project.status === "ok" && !sharedSender && recipients.status === "ok" && settledList === listed && count > 0 && (recipients.value?.unknown.length ?? 0) === 0;
  return (
    <>
      <Button onClick={() => setOpen(true)}>Send…</Button>
      <Dialog open={open} onClose={close} title={`Send "${draft.displayName}"`}>
        {outcome ? (
          <>
            <Alert kind="success">{outcome}</Alert>
            <div className="vs-row">
              <Button variant="primary" onClick={close}>
                Done
              </Button>
            </div>
          </>
        ) : confirming ? (
          <>
            <p style={{ margin: 0, fontWeight: 600 }}>Send to {usersWord(count)}?</p>
            <p className="vs-muted" style={{ margin: 0 }}>
              Each of them gets the saved version of "{draft.displayName}" now. A sent e-mail cannot be called back.
            </p>
            <ErrorAlert error={sendState.error} />
            <div className="vs-row">
              <Button variant="primary" loading={sendState.pending} onClick={() => void send()}>
                Send now
              </Button>
              <Button onClick={() => setConfirming(false)} disabled={sendState.pending}>
                Back
              </Button>
            </div>
          </>
        ) : (
          <>
            {project.status === "ok" && sharedSender ? (
              <Alert kind="warning">Sending to users needs your own SMTP server. Choose "My own SMTP server" in the Sender tab first.</Alert>
            ) : null}
            <ErrorAlert error={project.error} />
            <Select
              label="Recipients"
              value={segment}
              onChange={(v) => setSegment(v as Segment)}
              options={[
                { value: "all", label: "All users" },
                { value: "verified", label: "Users with a verified e-mail" },
                { value: "listed", label: "Specific users" },
              ]}
            />
            {segment === "listed" ? (
              <TextArea label="E-mail addresses or user IDs" hint="One per line, or separated by commas." value={listed} onChange={setListed} rows={4} />
            ) : null}
            {recipients.status === "loading" ? <Progress label="Counting the recipients" /> : null}
            <ErrorAlert error={recipients.error} />
            {recipients.value && recipients.value.unknown.length > 0 ? (
              <Alert kind="error">No user has {recipients.value.unknown.length === 1 ? "this e-mail address or ID" : "these e-mail addresses or IDs"}: {recipients.value.unknown.join(", ")}.</Alert>
            ) : null}
            {recipients.status === "ok" ? <p style={{ margin: 0 }} data-testid="recipient-count">{count === 0 ? "No users match." : `${usersWord(count)} will get this e-mail.`}</p> : null}
            <div className="vs-row">
              <Button variant="primary" disabled={!ready} onClick={() => setConfirming(true)}>
                {`Send to ${usersWord(count)}…`}
              </Button>
              <Button onClick={close}>Cancel</Button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
