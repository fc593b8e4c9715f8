-- Console sign-in sessions ended by sign-out (docs/console.md, Sign-in). A session is a cookie the browser holds, which
-- carries its tokens encrypted: clearing it in the browser does not end a copy of it. Each sign-out records the
-- session's key (an HMAC under the session secret of the ID token's issuer, subject and provider session or issue
-- time) until it could no longer be used anyway; a cookie whose key is here is sent through sign-in again. One row per
-- sign-out, swept after forget_at.
CREATE TABLE console_ended_sessions (
    session_key text PRIMARY KEY,
    forget_at timestamptz NOT NULL
);

CREATE INDEX console_ended_sessions_forget_at ON console_ended_sessions (forget_at);
