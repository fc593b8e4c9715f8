-- The W3C trace context a message carries (issue 44, decision 0022): traceparent, the context of the span that
-- produced it (the post's producer span when tracing is on, else the caller's header as received), kept only when
-- valid and stored in version 00's form of 55 characters; tracestate, the caller's, kept only beside a traceparent and
-- only when well formed within W3C's bounds of 32 list members and 512 characters (io.pigeon.message.TraceContext,
-- which checks them; here by length). NULL for a message posted without one: every existing row. Nullable without a
-- default, so adding them rewrites nothing; the checks are NOT VALID because every existing row is NULL, so they need
-- not scan the table (they hold for every row written from now on). A dead-letter move copies them; a redrive moves
-- the row, so keeps them.
ALTER TABLE messages ADD COLUMN traceparent text COLLATE "C";
ALTER TABLE messages ADD COLUMN tracestate text COLLATE "C";
ALTER TABLE messages ADD CONSTRAINT messages_traceparent_bounded CHECK (length(traceparent) = 55) NOT VALID;
ALTER TABLE messages ADD CONSTRAINT messages_tracestate_bounded
    CHECK (tracestate IS NULL OR length(tracestate) BETWEEN 1 AND 512 AND traceparent IS NOT NULL) NOT VALID;
-- The traceparent a notification of a traced message is delivered with (a webhook's call and a mail carry it as a
-- header), copied from its message by the post that hands it to the subscriptions: the message may be gone by the
-- time it is sent. Bounded as the message's column.
ALTER TABLE dispatch_groups ADD COLUMN traceparent text COLLATE "C";
ALTER TABLE dispatch_groups ADD CONSTRAINT dispatch_groups_traceparent_bounded
    CHECK (length(traceparent) = 55) NOT VALID;
