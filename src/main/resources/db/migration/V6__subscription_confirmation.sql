-- Zaqar's subscription confirmation: a subscription is stored unconfirmed, and is confirmed (or unconfirmed)
-- by PUT .../subscriptions/{id}/confirm. With pigeon.notification.require-confirmation on, only confirmed
-- subscriptions are notified; off (the default, as in Zaqar), every live one is.
ALTER TABLE subscriptions ADD COLUMN confirmed boolean NOT NULL DEFAULT false;
