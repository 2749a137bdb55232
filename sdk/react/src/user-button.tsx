/**
 * The user menu (spec §2): a round avatar button opening a dropdown.
 *  - signed in: a label with the name and e-mail, "Account settings", the host page's extra items, optionally
 *    "Toggle theme", and "Sign out";
 *  - signed out: the label "Not signed in", "Sign in" and "Sign up";
 *  - demo mode (`mockUser`): the signed-in menu for a mock user whose actions only log;
 *  - loading: a 34px round skeleton;
 *  - an item whose handler returns a promise shows a spinner until it settles, then the menu closes.
 * Keyboard: the button opens with Enter, Space or ArrowDown (first item) and ArrowUp (last item); inside, arrows move
 * (wrapping), Home/End jump, typing jumps to the item starting with the typed text (reset after 1,000 ms), ArrowRight
 * opens a submenu, ArrowLeft closes it, Escape closes and returns focus to the button, Tab closes. Pointer: a submenu
 * opens after hovering its item for 100 ms and stays open for a 300 ms grace period while the pointer travels to it.
 */
import { Suspense, useCallback, useEffect, useId, useRef, useState, type CSSProperties, type KeyboardEvent, type ReactNode } from "react";
import { Avatar, AVATAR_SIZE, type AvatarUser } from "./avatar.tsx";
import { useUser } from "./hooks.ts";
import { useStackApp } from "./provider.tsx";
import { USER_BUTTON_CSS } from "./styles.ts";

export const SUBMENU_OPEN_DELAY_MS = 100;
export const POINTER_GRACE_MS = 300;
export const TYPEAHEAD_RESET_MS = 1_000;

export const NOT_SIGNED_IN_LABEL = "Not signed in";
export const MENU_TEXT = {
  accountSettings: "Account settings",
  toggleTheme: "Toggle theme",
  signOut: "Sign out",
  signIn: "Sign in",
  signUp: "Sign up",
} as const;

export interface UserButtonItem {
  readonly text: string;
  readonly icon?: ReactNode;
  /** A returned promise shows a spinner on the item until it settles; then the menu closes. */
  readonly onClick?: () => void | Promise<void>;
  /** Items of a submenu. */
  readonly items?: readonly UserButtonItem[];
}

export interface UserButtonProps {
  /** Show the name and e-mail beside the avatar. */
  readonly showUserInfo?: boolean;
  /** Adds "Toggle theme", which calls this. */
  readonly colorModeToggle?: () => void | Promise<void>;
  /** Items of the host page, shown between "Account settings" and "Sign out". */
  readonly extraItems?: readonly UserButtonItem[];
  /** Demo mode: show this user; actions only log (no navigation, no sign-out). */
  readonly mockUser?: AvatarUser;
  /** Avatar size in pixels (default 34). */
  readonly size?: number;
}

type Entry = { kind: "label"; content: ReactNode } | { kind: "separator" } | { kind: "item"; item: UserButtonItem };

export function UserButton(props: UserButtonProps) {
  const size = props.size ?? AVATAR_SIZE;
  return (
    <>
      <style href="vestibule-user-button" precedence="default">
        {USER_BUTTON_CSS}
      </style>
      <Suspense fallback={<UserButtonSkeleton size={size} />}>{props.mockUser ? <DemoUserButton {...props} size={size} /> : <LiveUserButton {...props} size={size} />}</Suspense>
    </>
  );
}

export function UserButtonSkeleton({ size = AVATAR_SIZE }: { size?: number }) {
  return (
    <span className="vst-user-button">
      <span className="vst-skeleton" role="status" aria-label="Loading user" aria-busy="true" style={{ width: size, height: size }} />
    </span>
  );
}

function LiveUserButton(props: UserButtonProps & { size: number }) {
  const app = useStackApp();
  const user = useUser();
  const entries: Entry[] = [];
  if (user) {
    entries.push({ kind: "label", content: <UserLabel user={user} /> });
    entries.push({ kind: "item", item: { text: MENU_TEXT.accountSettings, icon: <GearIcon />, onClick: () => app.redirectToAccountSettings() } });
    for (const item of props.extraItems ?? []) entries.push({ kind: "item", item });
    if (props.colorModeToggle) entries.push({ kind: "item", item: { text: MENU_TEXT.toggleTheme, icon: <ThemeIcon />, onClick: props.colorModeToggle } });
    entries.push({ kind: "separator" });
    entries.push({ kind: "item", item: { text: MENU_TEXT.signOut, icon: <SignOutIcon />, onClick: () => user.signOut() } });
  } else {
    entries.push({ kind: "label", content: <span className="vst-muted">{NOT_SIGNED_IN_LABEL}</span> });
    entries.push({ kind: "item", item: { text: MENU_TEXT.signIn, icon: <SignInIcon />, onClick: () => app.redirectToSignIn() } });
    entries.push({ kind: "item", item: { text: MENU_TEXT.signUp, icon: <SignUpIcon />, onClick: () => app.redirectToSignUp() } });
  }
  return <MenuButton user={user} entries={entries} size={props.size} showUserInfo={props.showUserInfo} />;
}

function DemoUserButton(props: UserButtonProps & { size: number }) {
  const user = props.mockUser!;
  const log = (action: string) => () => console.log(`User menu demo: ${action}`);
  const demoItem = (item: UserButtonItem): UserButtonItem => ({ ...item, onClick: log(item.text), items: item.items?.map(demoItem) });
  const entries: Entry[] = [
    { kind: "label", content: <UserLabel user={user} /> },
    { kind: "item", item: { text: MENU_TEXT.accountSettings, icon: <GearIcon />, onClick: log(MENU_TEXT.accountSettings) } },
    ...(props.extraItems ?? []).map((item): Entry => ({ kind: "item", item: demoItem(item) })),
    ...(props.colorModeToggle ? [{ kind: "item", item: { text: MENU_TEXT.toggleTheme, icon: <ThemeIcon />, onClick: props.colorModeToggle } } as Entry] : []),
    { kind: "separator" },
    { kind: "item", item: { text: MENU_TEXT.signOut, icon: <SignOutIcon />, onClick: log(MENU_TEXT.signOut) } },
  ];
  return <MenuButton user={user} entries={entries} size={props.size} showUserInfo={props.showUserInfo} />;
}

function UserLabel({ user }: { user: AvatarUser }) {
  return (
    <span className="vst-label">
      {user.displayName ? <span className="vst-name">{user.displayName}</span> : null}
      {user.primaryEmail ? <span className="vst-muted">{user.primaryEmail}</span> : null}
    </span>
  );
}

// ---- the dropdown ------------------------------------------------------------------------------------------------

function MenuButton({ user, entries, size, showUserInfo }: { user: AvatarUser | null; entries: Entry[]; size: number; showUserInfo?: boolean }) {
  const [open, setOpen] = useState<null | "first" | "last">(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const rootRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const close = useCallback((refocus: boolean) => {
    setOpen(null);
    if (refocus) triggerRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    const onPointerDown = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) close(false);
    };
    document.addEventListener("pointerdown", onPointerDown);
    return () => document.removeEventListener("pointerdown", onPointerDown);
  }, [open, close]);

  const onTriggerKeyDown = (e: KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      setOpen("first");
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setOpen("last");
    }
  };

  return (
    <div className="vst-user-button" ref={rootRef}>
      <button
        ref={triggerRef}
        type="button"
        className="vst-trigger"
        aria-haspopup="menu"
        aria-expanded={open !== null}
        aria-controls={open ? menuId : undefined}
        aria-label={user ? `User menu for ${user.displayName ?? user.primaryEmail ?? "user"}` : "User menu"}
        onClick={() => (open ? close(false) : setOpen("first"))}
        onKeyDown={onTriggerKeyDown}
      >
        <Avatar user={user} size={size} />
        {showUserInfo && user ? <UserLabel user={user} /> : null}
      </button>
      {open ? <Menu id={menuId} entries={entries} initialFocus={open} onClose={close} /> : null}
    </div>
  );
}

function Menu({
  id,
  entries,
  initialFocus,
  onClose,
  parentRef,
  style,
}: {
  id: string;
  entries: Entry[];
  initialFocus: "first" | "last";
  onClose: (refocus: boolean) => void;
  parentRef?: React.RefObject<HTMLElement | null>;
  style?: CSSProperties;
}) {
  const items = entries.flatMap((e) => (e.kind === "item" ? [e.item] : []));
  const [active, setActive] = useState(initialFocus === "first" ? 0 : items.length - 1);
  const [busy, setBusy] = useState<number | null>(null);
  const [submenu, setSubmenu] = useState<{ index: number; focus: "first" | "last" | null } | null>(null);
  const itemRefs = useRef<(HTMLDivElement | null)[]>([]);
  const typeahead = useRef({ text: "", timer: 0 as unknown as ReturnType<typeof setTimeout> });
  const hoverTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const graceTimer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (submenu?.focus) return; // the submenu holds the focus
    itemRefs.current[active]?.focus();
  }, [active, submenu]);

  useEffect(
    () => () => {
      clearTimeout(typeahead.current.timer);
      if (hoverTimer.current) clearTimeout(hoverTimer.current);
      if (graceTimer.current) clearTimeout(graceTimer.current);
    },
    [],
  );

  const select = async (index: number) => {
    const item = items[index];
    if (!item || busy !== null) return;
    if (item.items?.length) {
      setSubmenu({ index, focus: "first" });
      return;
    }
    const result = item.onClick?.();
    if (result && typeof (result as Promise<void>).then === "function") {
      setBusy(index);
      try {
        await result;
      } finally {
        setBusy(null);
      }
    }
    onClose(true);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (busy !== null) return;
    const n = items.length;
    switch (e.key) {
      case "ArrowDown":
        setActive((a) => (a + 1) % n);
        break;
      case "ArrowUp":
        setActive((a) => (a - 1 + n) % n);
        break;
      case "Home":
        setActive(0);
        break;
      case "End":
        setActive(n - 1);
        break;
      case "Enter":
      case " ":
        void select(active);
        break;
      case "ArrowRight":
        if (items[active]?.items?.length) setSubmenu({ index: active, focus: "first" });
        else return;
        break;
      case "ArrowLeft":
        if (parentRef) onClose(true);
        else return;
        break;
      case "Escape":
        onClose(true);
        break;
      case "Tab":
        onClose(false);
        return;
      default:
        if (e.key.length === 1 && !e.ctrlKey && !e.metaKey && !e.altKey) {
          const t = typeahead.current;
          clearTimeout(t.timer);
          t.text += e.key.toLowerCase();
          t.timer = setTimeout(() => (t.text = ""), TYPEAHEAD_RESET_MS);
          const start = t.text.length === 1 ? active + 1 : active;
          for (let k = 0; k < n; k++) {
            const i = (start + k) % n;
            if (items[i]!.text.toLowerCase().startsWith(t.text)) {
              setActive(i);
              break;
            }
          }
          break;
        }
        return;
    }
    e.preventDefault();
    e.stopPropagation();
  };

  const onItemPointerEnter = (index: number) => {
    if (graceTimer.current) clearTimeout(graceTimer.current);
    if (hoverTimer.current) clearTimeout(hoverTimer.current);
    setActive(index);
    if (items[index]?.items?.length) {
      hoverTimer.current = setTimeout(() => setSubmenu({ index, focus: null }), SUBMENU_OPEN_DELAY_MS);
    } else if (submenu) {
      // Leaving the submenu's item for another one: keep the submenu for the grace period (the pointer may be
      // crossing a corner of this item on its way to the submenu).
      graceTimer.current = setTimeout(() => setSubmenu(null), POINTER_GRACE_MS);
    }
  };

  const onItemPointerLeave = (index: number) => {
    if (hoverTimer.current) clearTimeout(hoverTimer.current);
    if (submenu?.index === index) {
      if (graceTimer.current) clearTimeout(graceTimer.current);
      graceTimer.current = setTimeout(() => setSubmenu(null), POINTER_GRACE_MS);
    }
  };

  let itemIndex = -1;
  return (
    <div id={id} role="menu" aria-orientation="vertical" className="vst-menu" onKeyDown={onKeyDown} style={style}>
      {entries.map((entry, i) => {
        if (entry.kind === "label") {
          return (
            <div key={i} role="presentation" className="vst-menu-label">
              {entry.content}
            </div>
          );
        }
        if (entry.kind === "separator") return <div key={i} role="separator" className="vst-separator" />;
        const index = ++itemIndex;
        const item = entry.item;
        const hasSubmenu = !!item.items?.length;
        const subOpen = submenu?.index === index;
        const subId = `${id}-sub-${index}`;
        return (
          <div key={i} className="vst-item-wrap">
            <div
              ref={(el) => {
                itemRefs.current[index] = el;
              }}
              role="menuitem"
              tabIndex={index === active ? 0 : -1}
              aria-haspopup={hasSubmenu ? "menu" : undefined}
              aria-expanded={hasSubmenu ? subOpen : undefined}
              aria-controls={hasSubmenu && subOpen ? subId : undefined}
              aria-busy={busy === index || undefined}
              aria-disabled={busy !== null && busy !== index ? true : undefined}
              data-active={index === active || undefined}
              className="vst-item"
              onClick={() => void select(index)}
              onPointerEnter={() => onItemPointerEnter(index)}
              onPointerLeave={() => onItemPointerLeave(index)}
            >
              {busy === index ? (
                <span className="vst-item-icon">
                  <span className="vst-spinner" role="progressbar" aria-label="Working" />
                </span>
              ) : (
                <span className="vst-item-icon" aria-hidden="true">
                  {item.icon}
                </span>
              )}
              <span className="vst-item-text">{item.text}</span>
              {hasSubmenu ? (
                <span className="vst-chevron" aria-hidden="true">
                  ›
                </span>
              ) : null}
            </div>
            {hasSubmenu && subOpen ? (
              <div
                onPointerEnter={() => graceTimer.current && clearTimeout(graceTimer.current)}
                onPointerLeave={() => {
                  graceTimer.current = setTimeout(() => setSubmenu(null), POINTER_GRACE_MS);
                }}
              >
                <Menu
                  id={subId}
                  entries={item.items!.map((sub) => ({ kind: "item", item: sub }))}
                  initialFocus={submenu?.focus ?? "first"}
                  onClose={(refocus) => {
                    setSubmenu(null);
                    if (refocus) itemRefs.current[index]?.focus();
                  }}
                  parentRef={{ current: itemRefs.current[index] ?? null }}
                />
              </div>
            ) : null}
          </div>
        );
      })}
    </div>
  );
}

// ---- icons (inline SVG, currentColor) ----------------------------------------------------------------------------

const iconProps = { width: 16, height: 16, viewBox: "0 0 24 24", fill: "none", stroke: "currentColor", strokeWidth: 2, strokeLinecap: "round", strokeLinejoin: "round" } as const;

function GearIcon() {
  return (
    <svg {...iconProps}>
      <circle cx="12" cy="12" r="3" />
      <path d="M19.4 15a1.7 1.7 0 0 0 .3 1.8l.1.1a2 2 0 1 1-2.8 2.8l-.1-.1a1.7 1.7 0 0 0-1.8-.3 1.7 1.7 0 0 0-1 1.5V21a2 2 0 1 1-4 0v-.1a1.7 1.7 0 0 0-1.1-1.5 1.7 1.7 0 0 0-1.8.3l-.1.1a2 2 0 1 1-2.8-2.8l.1-.1a1.7 1.7 0 0 0 .3-1.8 1.7 1.7 0 0 0-1.5-1H3a2 2 0 1 1 0-4h.1a1.7 1.7 0 0 0 1.5-1.1 1.7 1.7 0 0 0-.3-1.8l-.1-.1a2 2 0 1 1 2.8-2.8l.1.1a1.7 1.7 0 0 0 1.8.3H9a1.7 1.7 0 0 0 1-1.5V3a2 2 0 1 1 4 0v.1a1.7 1.7 0 0 0 1 1.5 1.7 1.7 0 0 0 1.8-.3l.1-.1a2 2 0 1 1 2.8 2.8l-.1.1a1.7 1.7 0 0 0-.3 1.8V9a1.7 1.7 0 0 0 1.5 1H21a2 2 0 1 1 0 4h-.1a1.7 1.7 0 0 0-1.5 1z" />
    </svg>
  );
}
function SignOutIcon() {
  return (
    <svg {...iconProps}>
      <path d="M9 21H5a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h4" />
      <path d="M16 17l5-5-5-5" />
      <path d="M21 12H9" />
    </svg>
  );
}
function SignInIcon() {
  return (
    <svg {...iconProps}>
      <path d="M15 3h4a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2h-4" />
      <path d="M10 17l5-5-5-5" />
      <path d="M15 12H3" />
    </svg>
  );
}
function SignUpIcon() {
  return (
    <svg {...iconProps}>
      <path d="M16 21v-2a4 4 0 0 0-4-4H6a4 4 0 0 0-4 4v2" />
      <circle cx="9" cy="7" r="4" />
      <path d="M19 8v6M22 11h-6" />
    </svg>
  );
}
function ThemeIcon() {
  return (
    <svg {...iconProps}>
      <path d="M21 12.8A9 9 0 1 1 11.2 3a7 7 0 0 0 9.8 9.8z" />
    </svg>
  );
}
