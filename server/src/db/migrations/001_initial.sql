-- Initial schema. Invariants live here, not only in code: one occupant per door, one
-- active pickup code per station, one return per parcel.

create table organizations (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  -- Where "merchant notified" is delivered; the secret signs each delivery, so it is kept
  -- as is (a hash could not sign).
  webhook_url text,
  webhook_secret text,
  return_window_days integer not null default 14 check (return_window_days > 0),
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id) on delete cascade,
  key_hash bytea not null unique,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_organization on api_keys (organization_id);

create table stations (
  id uuid primary key default gen_random_uuid(),
  code text not null unique check (length(code) between 1 and 64),
  name text not null,
  cabinet_sn text not null unique,
  support_phone text not null default '',
  idle_timeout_seconds integer not null default 60 check (idle_timeout_seconds > 0),
  free_storage_hours integer not null default 72 check (free_storage_hours > 0),
  -- Bumped by triggers whenever the door grid could read differently: the cabinet ETag.
  cabinet_version bigint not null default 1,
  created_at timestamptz not null default now()
);

create table doors (
  id uuid primary key default gen_random_uuid(),
  station_id uuid not null references stations (id) on delete cascade,
  position integer not null check (position > 0),
  code text,
  size text check (size in ('S', 'M', 'L', 'XL')),
  out_of_service boolean not null default false,
  unique (station_id, position)
);

create table terminals (
  id uuid primary key default gen_random_uuid(),
  -- Null only when the station was deleted: the terminal's station is then unresolved.
  station_id uuid references stations (id) on delete set null,
  token_hash bytea not null unique,
  status text not null default 'online' check (status in ('online', 'offline', 'disabled')),
  revoked_at timestamptz,
  last_heartbeat_at timestamptz,
  app_version text,
  created_at timestamptz not null default now()
);
create index terminals_liveness on terminals (coalesce(last_heartbeat_at, created_at))
  where status = 'online' and revoked_at is null;

create table couriers (
  id uuid primary key default gen_random_uuid(),
  number text not null unique,
  name text not null,
  active boolean not null default true,
  created_at timestamptz not null default now()
);

create table shipments (
  id uuid primary key default gen_random_uuid(),
  organization_id uuid not null references organizations (id),
  tracking_number text not null unique,
  destination_station_id uuid not null references stations (id),
  parcel_size text not null check (parcel_size in ('S', 'M', 'L', 'XL')),
  recipient_name text not null,
  recipient_phone text not null,
  recipient_language text not null check (recipient_language in ('sq', 'sr', 'tr', 'en')),
  merchant_order_reference text,
  status text not null default 'booked' check (status in (
    'booked', 'ready_for_pickup', 'collected', 'return_started', 'returned_to_locker',
    'return_collected')),
  -- When the current status began: the tracking event's time (`occurred_at` when late).
  status_at timestamptz not null default now(),
  -- The door position once deposited (the merchant's destination.slot_no).
  slot_no integer,
  -- HMAC of the pickup code with the server secret; present exactly while awaiting pickup.
  pickup_code_hash bytea,
  deposited_at timestamptz,
  deposited_by uuid references couriers (id),
  collected_at timestamptz,
  collected_late boolean,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((status = 'ready_for_pickup') = (pickup_code_hash is not null))
);
create unique index shipments_active_pickup_code
  on shipments (destination_station_id, pickup_code_hash) where status = 'ready_for_pickup';
create index shipments_organization_newest on shipments (organization_id, created_at desc, id desc);
create index shipments_station_status on shipments (destination_station_id, status);

create table returns (
  id uuid primary key default gen_random_uuid(),
  -- One return per parcel: started once, resumed on retries, never started twice.
  shipment_id uuid not null unique references shipments (id),
  station_id uuid not null references stations (id),
  status text not null default 'open' check (status in ('open', 'deposited', 'collected')),
  created_at timestamptz not null default now(),
  deposited_at timestamptz,
  collected_at timestamptz
);

-- What is physically in (or reserved in) each door. The primary key is the rule "at most
-- one parcel per door"; door status is derived from this table and nothing else.
create table door_occupancy (
  door_id uuid primary key references doors (id) on delete cascade,
  station_id uuid not null references stations (id) on delete cascade,
  kind text not null check (kind in ('delivery', 'return_hold', 'return')),
  shipment_id uuid not null unique references shipments (id),
  return_id uuid references returns (id),
  since timestamptz not null default now(),
  check ((kind = 'delivery') = (return_id is null))
);
create index door_occupancy_station on door_occupancy (station_id);

create table tracking_events (
  id bigint generated always as identity primary key,
  shipment_id uuid not null references shipments (id),
  status text not null,
  occurred_at timestamptz not null,
  station_id uuid references stations (id),
  recorded_at timestamptz not null default now()
);
create index tracking_events_shipment on tracking_events (shipment_id, occurred_at, id);

create table rate_limit_hits (
  terminal_id uuid not null,
  bucket text not null,
  at timestamptz not null default clock_timestamp()
);
create index rate_limit_hits_window on rate_limit_hits (terminal_id, bucket, at);

create table sms_outbox (
  id bigint generated always as identity primary key,
  shipment_id uuid references shipments (id),
  to_phone text not null,
  language text not null,
  -- Holds the pickup code only until sent; replaced by a redacted text afterwards.
  body text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  sent_at timestamptz,
  last_error text,
  created_at timestamptz not null default now()
);
create index sms_outbox_due on sms_outbox (next_attempt_at) where sent_at is null;

create table alerts (
  id bigint generated always as identity primary key,
  kind text not null,
  terminal_id uuid references terminals (id),
  station_id uuid references stations (id),
  message text not null,
  created_at timestamptz not null default now()
);

create function bump_cabinet_version() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    update stations set cabinet_version = cabinet_version + 1 where id = old.station_id;
  else
    update stations set cabinet_version = cabinet_version + 1 where id = new.station_id;
  end if;
  return null;
end $$;

create trigger doors_cabinet_version after insert or update or delete on doors
  for each row execute function bump_cabinet_version();
create trigger door_occupancy_cabinet_version after insert or update or delete on door_occupancy
  for each row execute function bump_cabinet_version();

create function bump_station_version() returns trigger language plpgsql as $$
begin
  if (new.code, new.name) is distinct from (old.code, old.name) then
    new.cabinet_version := old.cabinet_version + 1;
  end if;
  return new;
end $$;
create trigger stations_cabinet_version before update on stations
  for each row execute function bump_station_version();

-- Every status change is a tracking event: a trigger, so no code path can forget one.
create function record_tracking_event() returns trigger language plpgsql as $$
begin
  insert into tracking_events (shipment_id, status, occurred_at, station_id)
  values (new.id, new.status, new.status_at,
          case when new.status = 'booked' then null else new.destination_station_id end);
  return null;
end $$;
create trigger shipments_tracking_insert after insert on shipments
  for each row execute function record_tracking_event();
create trigger shipments_tracking_update after update of status on shipments
  for each row when (old.status is distinct from new.status)
  execute function record_tracking_event();
