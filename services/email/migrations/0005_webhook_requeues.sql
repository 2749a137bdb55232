-- A re-send or replay that lands while an attempt of the same message is in flight must not be undone by that
-- attempt's outcome (it used to mark the row delivered and the re-send was lost). Re-send and replay count here; an
-- attempt records its outcome on the message only when the count is still the one it claimed.
ALTER TABLE webhook_messages ADD COLUMN requeues integer NOT NULL DEFAULT 0;
