-- Issue 22: webhooks that cannot be used to stall others.
--
-- Each accepted POST /events/{id}/redeliver, so the caps (per event, per organization and
-- minute) are exact across instances. Kept a day: the longest window a cap looks at.
create table webhook_redeliveries (
  id bigint generated always as identity primary key,
  organization_id uuid not null references organizations (id) on delete cascade,
  event_id uuid not null references events (id) on delete cascade,
  at timestamptz not null default now()
);
create index webhook_redeliveries_organization on webhook_redeliveries (organization_id, at);
create index webhook_redeliveries_event on webhook_redeliveries (event_id, at);

-- Webhook signing secrets are encrypted at rest (AES-256-GCM, webhooks/secretKeys.ts): a
-- secret column holds the base64 ciphertext made with the key named beside it. A null key
-- id: still in clear, as every secret before this migration; the server encrypts those as
-- it starts (it has the key, SQL does not), and `pnpm admin webhooks rotate-key` too.
alter table webhook_endpoints
  add column secret_key_id text,
  add column previous_secret_key_id text;
