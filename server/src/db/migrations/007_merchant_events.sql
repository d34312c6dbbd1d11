-- Merchant events and webhook endpoints (Standard Webhooks). Every event an organization's
-- parcels cause is kept, so a receiver that was down can pull what it missed
-- (GET /api/v1/events); each enabled endpoint gets its own delivery of it.

-- Numbers the organization's events in commit order: the increment takes the row's
-- no-key-update lock until commit, so a reader paging by `seq` never skips one that
-- commits late. (It does not block shipment inserts, whose foreign key takes key-share.)
alter table organizations add column event_seq bigint not null default 0;

create table events (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  seq bigint not null,
  shipment_id uuid references shipments (id),
  type text not null,
  -- The exact bytes delivered and signed, the same on every retry and redelivery.
  body text not null,
  created_at timestamptz not null default now(),
  unique (organization_id, seq)
);
create index events_shipment on events (shipment_id);

create table webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  url text not null,
  description text,
  -- Signing keys must be usable, so they are kept as is (a hash could not sign).
  secret text not null,
  -- After a rotation the old secret also signs until this time, so receivers can roll over.
  previous_secret text,
  previous_secret_until timestamptz,
  -- Set when the endpoint answered 410 Gone: nothing more is sent until it is enabled.
  disabled_at timestamptz,
  disabled_reason text,
  created_at timestamptz not null default now()
);
create index webhook_endpoints_organization on webhook_endpoints (organization_id);

-- The one URL an organization had becomes its first endpoint. Its secret was base64url;
-- Standard Webhooks secrets are standard base64 of the same 32 bytes.
insert into webhook_endpoints (organization_id, url, secret)
select id, webhook_url,
       case when webhook_secret ~ '^whsec_[A-Za-z0-9_-]{43}$'
            then 'whsec_' || translate(substr(webhook_secret, 7), '-_', '+/') || '='
            else webhook_secret end
  from organizations where webhook_url is not null and webhook_secret is not null;

-- Events already queued become events of record, numbered in queue order.
insert into events (id, organization_id, seq, shipment_id, type, body, created_at)
select (payload->>'event_id')::uuid, organization_id,
       row_number() over (partition by organization_id order by id),
       shipment_id, payload->>'type', payload->>'body', created_at
  from outbox where channel = 'webhook' and organization_id is not null and payload ? 'body';
update organizations o
   set event_seq = (select coalesce(max(seq), 0) from events e where e.organization_id = o.id);
update outbox x
   set payload = jsonb_build_object(
         'event_id', payload->>'event_id', 'type', payload->>'type',
         'endpoint_id', (select w.id from webhook_endpoints w where w.organization_id = x.organization_id))
 where channel = 'webhook' and payload ? 'body';

alter table organizations drop column webhook_url, drop column webhook_secret;
