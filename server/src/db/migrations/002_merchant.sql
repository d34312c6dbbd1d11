-- One durable outbox for everything that leaves the service (SMS, webhooks): the two
-- share claiming, leases, retries and backoff. Replaces sms_outbox, rows carried over.
create table outbox (
  id bigint generated always as identity primary key,
  channel text not null check (channel in ('sms', 'webhook')),
  organization_id uuid references organizations (id) on delete cascade,
  shipment_id uuid references shipments (id),
  -- sms: {to, language, text}; webhook: {event_id, type, body}
  payload jsonb not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  delivered_at timestamptz,
  -- Set when retries are given up: kept for operations, never deleted silently.
  failed_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index outbox_due on outbox (channel, next_attempt_at)
  where delivered_at is null and failed_at is null;
create index outbox_shipment on outbox (shipment_id);

insert into outbox (channel, shipment_id, payload, attempts, next_attempt_at, delivered_at, last_error, created_at)
select 'sms', shipment_id, jsonb_build_object('to', to_phone, 'language', language, 'text', body),
       attempts, next_attempt_at, sent_at, last_error, created_at
  from sms_outbox;
drop table sms_outbox;

-- Create-shipment replays: the first answer to a key is kept for 24 hours.
create table idempotency_keys (
  organization_id uuid not null references organizations (id) on delete cascade,
  key text not null,
  request_hash bytea not null,
  -- Written in the same transaction as the shipment; a concurrent request with the same
  -- key waits on the primary key until that transaction ends, then replays this.
  response_status integer,
  response_body jsonb,
  created_at timestamptz not null default now(),
  primary key (organization_id, key)
);
create index idempotency_keys_age on idempotency_keys (created_at);

-- Merchant rate limit: per-organization counters of one-minute windows; the limit is
-- judged on a sliding estimate over the current and previous window.
create table merchant_rate_windows (
  organization_id uuid not null,
  window_start timestamptz not null,
  hits integer not null,
  primary key (organization_id, window_start)
);
