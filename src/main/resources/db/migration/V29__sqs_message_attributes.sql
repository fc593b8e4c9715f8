-- SQS messages on Zaqar's rows (issue 42, decision 0019).
-- sqs_attributes: what an SQS SendMessage stores beside the body (its message attributes, its AWSTraceHeader, its
-- sender), as one JSON text, sealed as the body is when the queue encrypts; NULL for every message posted through
-- Zaqar. Nullable without a default, so adding it rewrites nothing, and a NULL costs a row one bit of its null bitmap.
-- first_claimed_at: when a claim (through either API) first took the message: SQS's ApproximateFirstReceiveTimestamp.
-- Written by the claim's own update of the row (no extra row version), cleared with claim_count by a redrive.
ALTER TABLE messages ADD COLUMN sqs_attributes text;
ALTER TABLE messages ADD COLUMN first_claimed_at timestamptz;

-- The key of SQS receipt handles (io.pigeon.sqs.ReceiptHandles): an HMAC under it binds each handle to its project,
-- queue, message and claim. As the call marker's (V13): random, once per database, read by every replica from the
-- configured database, never a constant.
INSERT INTO deployment_secrets (name, value)
VALUES ('receipt-handles', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''))
ON CONFLICT (name) DO NOTHING;
