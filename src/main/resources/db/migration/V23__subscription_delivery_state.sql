-- The console shows each subscription's delivery state (issue 31): when a notification last reached it, how many of
-- its notification calls failed, when the last one failed and why. The dispatcher writes them as it settles a call
-- of the subscription's notification. The error is one short text per subscription, cut to 300 characters where it is
-- written (the dispatcher's texts are a few words: "HTTP 5xx", "connection failed"); the check keeps any writer to it.
-- Adding columns without a volatile default rewrites nothing; no index is touched, so the updates can stay HOT.
ALTER TABLE subscriptions
    ADD COLUMN last_delivered_at timestamptz,
    ADD COLUMN failures bigint NOT NULL DEFAULT 0,
    ADD COLUMN last_failed_at timestamptz,
    ADD COLUMN last_error text,
    ADD CONSTRAINT subscriptions_last_error_bounded CHECK (char_length(last_error) <= 300);
