-- The expiry of the latest confirmation request sent for a subscription. Only the grant of that request confirms
-- it: a grant sent to an earlier subscriber (before a PATCH changed it) or an earlier request no longer does.
-- Each new request's expiry is later than every earlier one's, so no earlier grant can become current again.
ALTER TABLE subscriptions ADD COLUMN confirmation_until timestamptz;
