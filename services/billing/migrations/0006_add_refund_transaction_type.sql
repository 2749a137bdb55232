-- A purchase refund row is a refund (Vestibule's, or one made in Stripe's dashboard) or a chargeback (a dispute the
-- card holder opened); the current SDK lists them as "refund" and "chargeback" transactions.
ALTER TABLE purchase_refunds ADD COLUMN transaction_type text NOT NULL DEFAULT 'refund' CHECK (transaction_type IN ('refund', 'chargeback'));
