/**
 * A destructive one-click action behind a confirmation: the button opens a dialog that says what happens, and only
 * its confirm button runs the action (API key revoke, permission delete, domain and provider removal).
 */
import { useState, type ReactNode } from "react";
import { Button, Dialog } from "./components.tsx";

export interface ConfirmButtonProps {
  /** The button's visible text ("Remove", "Revoke"). */
  readonly children: ReactNode;
  /** The dialog's title, a question ("Remove the domain https://a.example.com?"). */
  readonly title: string;
  /** What the action does, in a sentence or two. */
  readonly message: ReactNode;
  /** The confirm button's text ("Remove domain"). */
  readonly confirmLabel: string;
  readonly onConfirm: () => void | Promise<unknown>;
  readonly disabled?: boolean;
  readonly small?: boolean;
}

export function ConfirmButton({ children, title, message, confirmLabel, onConfirm, disabled, small = true }: ConfirmButtonProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <Button small={small} variant="danger" disabled={disabled} onClick={() => setOpen(true)}>
        {children}
      </Button>
      <Dialog open={open} onClose={() => setOpen(false)} title={title}>
        <p style={{ margin: 0 }}>{message}</p>
        <div className="vs-row">
          <Button
            variant="danger"
            onClick={() => {
              setOpen(false);
              void onConfirm();
            }}
          >
            {confirmLabel}
          </Button>
          <Button onClick={() => setOpen(false)}>Cancel</Button>
        </div>
      </Dialog>
    </>
  );
}
