import { useState, type FormEvent } from "react";
import type { ContactChannel, CurrentUser } from "@vestibule/js";
import { useContactChannels } from "@vestibule/react";
import { Alert, Button, ErrorAlert, TextField, useAction } from "@vestibule/ui";
import { emailError } from "../validation.ts";

/** One address; its actions refresh the cached list (useContactChannels re-renders). */
function ChannelRow({ channel }: { channel: ContactChannel }) {
  const [sent, setSent] = useState(false);
  const [act, state] = useAction(async (what: "verify" | "primary" | "auth" | "delete") => {
    if (what === "verify") {
      await channel.sendVerificationEmail();
      setSent(true);
    } else if (what === "primary") await channel.update({ isPrimary: true });
    else if (what === "auth") await channel.update({ usedForAuth: !channel.usedForAuth });
    else await channel.delete();
  });
  return (
    <li className="vs-stack" style={{ gap: 6, padding: "12px 0", borderBottom: "1px solid var(--vs-border)" }}>
      <div className="vs-spread">
        <span>
          <strong>{channel.value}</strong>{" "}
          {channel.isPrimary ? <span className="vs-badge">Primary</span> : null}{" "}
          {channel.isVerified ? <span className="vs-badge vs-badge-ok">Verified</span> : <span className="vs-badge vs-badge-warn">Unverified</span>}{" "}
          {channel.usedForAuth ? <span className="vs-badge">Used for sign-in</span> : null}
        </span>
        <div className="vs-row">
          {!channel.isVerified ? (
            <Button small onClick={() => void act("verify")} disabled={state.pending}>
              Send verification e-mail
            </Button>
          ) : null}
          {!channel.isPrimary && channel.isVerified ? (
            <Button small onClick={() => void act("primary")} disabled={state.pending}>
              Make primary
            </Button>
          ) : null}
          <Button small onClick={() => void act("auth")} disabled={state.pending}>
            {channel.usedForAuth ? "Stop using for sign-in" : "Use for sign-in"}
          </Button>
          {!channel.isPrimary ? (
            <Button small variant="danger" onClick={() => void act("delete")} disabled={state.pending}>
              Remove<span className="vs-sr-only"> {channel.value}</span>
            </Button>
          ) : null}
        </div>
      </div>
      {sent ? <Alert kind="success">Verification e-mail sent to {channel.value}.</Alert> : null}
      <ErrorAlert error={state.error} />
    </li>
  );
}

export function EmailsSection({ user }: { user: CurrentUser }) {
  const channels = useContactChannels();
  const [value, setValue] = useState("");
  const [touched, setTouched] = useState(false);
  const [add, addState] = useAction(async () => {
    await user.createContactChannel({ type: "email", value: value.trim(), usedForAuth: false });
    setValue("");
    setTouched(false);
  });
  return (
    <div className="vs-stack">
      <h2>E-mail addresses</h2>
      <ul style={{ listStyle: "none", margin: 0, padding: 0 }} aria-label="Your e-mail addresses">
        {channels.map((c) => (
          <ChannelRow key={c.id} channel={c} />
        ))}
      </ul>
      <form
        className="vs-row"
        style={{ alignItems: "flex-end" }}
        noValidate
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          setTouched(true);
          if (!emailError(value)) void add();
        }}
      >
        <div style={{ flex: "1 1 240px" }}>
          <TextField label="Add an e-mail address" type="email" value={value} onChange={setValue} error={touched ? emailError(value) : null} />
        </div>
        <Button type="submit" loading={addState.pending}>
          Add
        </Button>
      </form>
      <ErrorAlert error={addState.error} />
    </div>
  );
}
