-- Message groups (issue 43, decision 0020). message_group: the group a message was posted in (Zaqar v2's "group",
-- SQS's MessageGroupId), NULL for a message posted without one. A queue whose _ordering is "fifo" or "fair" claims by
-- it; a queue of "none" (the default) stores it and never reads it. Bounded as SQS bounds MessageGroupId: 1 to 128
-- visible ASCII characters, checked where it is read (io.pigeon.message.MessageGroups) and here by length. Nullable
-- without a default, so adding it rewrites nothing; the check is NOT VALID because every existing row is NULL, so it
-- need not scan the table (it holds for every row written from now on). COLLATE "C": groups are compared byte by
-- byte, as SQS compares them, and sorted without a locale.
ALTER TABLE messages ADD COLUMN message_group text COLLATE "C";
ALTER TABLE messages ADD CONSTRAINT messages_group_bounded
    CHECK (length(message_group) BETWEEN 1 AND 128) NOT VALID;
