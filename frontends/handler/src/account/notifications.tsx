import type { CurrentUser } from "@vestibule/js";
import { ErrorAlert, Skeleton, Switch, useAction, useLoad } from "@vestibule/ui";

export function NotificationsSection({ user }: { user: CurrentUser }) {
  const categories = useLoad(() => user.listNotificationCategories(), [user]);
  const [set, state] = useAction(async (id: string, enabled: boolean) => {
    await categories.value!.find((c) => c.id === id)!.setEnabled(enabled);
    await categories.reload();
  });
  return (
    <div className="vs-stack">
      <h2>E-mail notifications</h2>
      <ErrorAlert error={categories.error ?? state.error} />
      {categories.status === "loading" ? <Skeleton height={48} /> : null}
      {(categories.value ?? []).map((c) => (
        <Switch
          key={c.id}
          label={c.name}
          description={c.canDisable ? undefined : "Needed for your account (sign-in codes, security notices); cannot be turned off."}
          checked={c.enabled}
          disabled={!c.canDisable || state.pending}
          onChange={(on) => void set(c.id, on)}
        />
      ))}
    </div>
  );
}
