-- Capacity merchants can count on (issue 27): stations have a place, a booking may hold a
-- door until its deposit, doors within reach, and storage the recipient may extend once.

-- Nearest stations by great-circle distance through a GiST index, without PostGIS: the
-- contrib modules cube and earthdistance (both "trusted": any database owner may create
-- them; the embedded PostgreSQL ships them). ll_to_earth gives a point on the earth's
-- surface in 3-D; `<->` between two of them is the chord, which orders exactly as the
-- great-circle distance does, and a GiST index serves `order by … <-> point` (KNN).
create extension if not exists cube;
create extension if not exists earthdistance;

alter table stations
  -- Where the station is, for people: one line, as on an envelope.
  add column address text check (length(address) <= 300),
  add column latitude double precision check (latitude between -90 and 90),
  add column longitude double precision check (longitude between -180 and 180),
  -- [{"days":["mo",…],"opens":"08:00","closes":"20:00"}, …] in the station's local time;
  -- null: not known. 24/7 is every day 00:00-24:00.
  add column opening_hours jsonb,
  -- Whether a wheelchair reaches the lockers without a step; null: not known.
  add column step_free boolean,
  -- How long a booking that reserved a door holds it before the reservation lapses.
  add column reservation_hours integer not null default 72
    check (reservation_hours between 1 and 720),
  -- The one extension of a parcel's storage its recipient (or merchant, or operator) may
  -- take; null: the station grants none.
  add column storage_extension_hours integer default 48
    check (storage_extension_hours between 1 and 720),
  add constraint stations_coordinates_together check ((latitude is null) = (longitude is null));

-- Live stations only: a sandbox organization's few simulated ones are found through their
-- own index and sorted (server/src/capacity/finder.ts).
-- Indexed through a wrapper with its own search_path: earthdistance's functions name
-- `cube` and `earth` unqualified, and pg_restore builds indexes with an empty search_path,
-- so an index on ll_to_earth itself could not be restored from a backup (docs/operations.md).
create function station_point(latitude float8, longitude float8) returns earth
  language sql immutable strict parallel safe
  set search_path = public
  as $$ select ll_to_earth(latitude, longitude) $$;
create index stations_near on stations using gist (station_point(latitude, longitude))
  where latitude is not null and sandbox_organization_id is null;
create index stations_sandbox on stations (sandbox_organization_id)
  where sandbox_organization_id is not null;

-- The door handle's height above the floor, from the cabinet file or the operator. An
-- accessible door's handle lies within 380-1,220 mm (EN 301 549's reach range).
alter table doors add column handle_height_mm integer check (handle_height_mm between 0 and 3000);

alter table shipments
  -- The booking asked for a door within reach: only such doors are reserved or assigned.
  add column accessible_door boolean not null default false,
  -- The booking reserved a door until then (null: it reserved none).
  add column reserved_until timestamptz,
  -- Hours added to free and maximum storage by the one extension (0: none taken).
  add column storage_extended_hours integer not null default 0
    check (storage_extended_hours >= 0);

-- A booking cancelled before its deposit. Every other status is the spec decisions' six.
alter table shipments drop constraint shipments_status_check;
alter table shipments add constraint shipments_status_check check (status in (
  'booked', 'ready_for_pickup', 'collected', 'return_started', 'returned_to_locker',
  'return_collected', 'cancelled'));

-- A door promised to one booking until its deposit, cancel or `until`. The primary key is
-- the rule "a door is promised at most once"; a lapsed row is dead (every query reads
-- `until > now()`) and is overwritten by the next reservation of its door. Door status
-- (GET /cabinet) never reads this table: it stays derived from what is in the door.
create table door_reservations (
  door_id uuid primary key references doors (id) on delete cascade,
  station_id uuid not null references stations (id) on delete cascade,
  shipment_id uuid not null unique references shipments (id) on delete cascade,
  until timestamptz not null,
  created_at timestamptz not null default now()
);
create index door_reservations_station on door_reservations (station_id, until);
