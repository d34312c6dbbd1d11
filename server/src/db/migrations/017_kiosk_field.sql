-- A kiosk's life in the field (issue 26).
--
-- Enrolment: an operator gets a one-time code per terminal (ten digits, 24 h); the kiosk
-- exchanges it for its device token (POST /terminal/v1/enrol). The code is kept only as
-- an HMAC keyed by the server's secret (PICKUP_CODE_SECRET): a database dump tells
-- nothing of the live codes, and ten digits cannot be tried offline without the key.
create table terminal_enrolment_codes (
  id uuid primary key default gen_random_uuid(),
  terminal_id uuid not null references terminals (id) on delete cascade,
  code_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz,
  -- Who asked for it (cli:<user> or an operator's e-mail), for the audit's sake.
  created_by text not null
);
create index terminal_enrolment_codes_terminal on terminal_enrolment_codes (terminal_id);

-- Rotating credentials: when the current token was issued, and the one offered in its
-- place (its hash) until the kiosk shows it has it by using it once.
alter table terminals add column token_issued_at timestamptz;
update terminals set token_issued_at = created_at;
alter table terminals alter column token_issued_at set default now();
alter table terminals alter column token_issued_at set not null;
alter table terminals add column next_token_hash bytea unique;
alter table terminals add column next_token_issued_at timestamptz;
