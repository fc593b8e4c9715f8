-- Free messages found without stepping over delayed ones (issue 41). messages_free held every unclaimed message in id
-- order, delayed or not, so a claim on a queue holding a backlog delayed into the future read every delayed row ahead
-- of the first visible one (a million delayed rows: 1.4 s per claim). It is split by delay: undelayed unclaimed
-- messages in id order, and delayed unclaimed ones in the order their delays end, so that a claim reads the due ones
-- from the first and stops at the first not yet due. Both predicates name claim_id, so a claimed message leaves both,
-- and live claims at a queue's head cost a claim nothing either (decision 0003 says why a claim is not a HOT update).
CREATE INDEX messages_free_ready ON messages (queue_id, id) WHERE claim_id IS NULL AND visible_at IS NULL;
CREATE INDEX messages_free_delayed ON messages (queue_id, visible_at) WHERE claim_id IS NULL AND visible_at IS NOT NULL;
DROP INDEX messages_free;
