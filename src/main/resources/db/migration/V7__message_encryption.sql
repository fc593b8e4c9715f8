-- Encryption at rest (a queue whose _enable_encrypt_messages is true). The body of such a message is stored
-- sealed by the application (base64 of nonce, ciphertext and tag) and key_id names the key that sealed it;
-- NULL: the body is stored in clear. Each row carries its own key id, so that keys can be replaced, and a queue
-- can switch encryption on or off, while older messages live on.
ALTER TABLE messages ADD COLUMN key_id text;

-- A notification of a sealed message keeps it sealed until it is sent: the call's body names the sealed text
-- (as a JSON string) where the message goes, and the dispatcher puts the opened body in its place.
ALTER TABLE dispatch_groups ADD COLUMN sealed_body text;
ALTER TABLE dispatch_groups ADD COLUMN sealed_key_id text;
