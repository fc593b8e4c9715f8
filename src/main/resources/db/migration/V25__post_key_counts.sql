-- The keys of idempotent posts each project holds, counted exactly as they are taken (PostKeyStore.REMEMBER), so that
-- pigeon.quotas.max-post-keys-per-project holds at every moment rather than once a periodic count has seen a project
-- over it (which let a project reach 2.2 times it within one interval). Each row counts the keys a project took that
-- are remembered until at most counted_until: their expiry rounded up to the next whole minute, so that a project's
-- keys are the sum of its rows still in the future and nothing is ever subtracted (a key re-taken once its window
-- ended counts anew in a later row; its old row has run out by then, or soon after). A post that takes keys adds to
-- its row under an advisory lock of its project, within its own transaction: a refused or failed post adds nothing.
-- The sweeper deletes rows whose time has passed.
CREATE TABLE post_key_counts (
    project       text COLLATE "C" NOT NULL,
    counted_until timestamptz NOT NULL,
    keys          bigint NOT NULL,
    PRIMARY KEY (project, counted_until)
);

CREATE INDEX post_key_counts_counted_until ON post_key_counts (counted_until);

-- The keys remembered now, counted as if they had been taken under this rule.
INSERT INTO post_key_counts (project, counted_until, keys)
SELECT project, date_trunc('minute', expires_at) + interval '1 minute', count(*)
FROM post_keys
WHERE expires_at > now()
GROUP BY 1, 2;

-- The periodic count no longer records projects over their keys: the count above is exact.
DELETE FROM quota_breaches WHERE kind = 'post_keys';
