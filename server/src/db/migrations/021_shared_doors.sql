-- Issue 27, "several parcels, one door, one code": parcels for the same recipient that a
-- courier deposits in one visit may share one door and its code (docs/decisions.md).
-- door_occupancy keeps one row a door, its lead parcel (every query that reads a door's
-- contents stays as it was); the parcels that joined it are here. When the lead is
-- collected while others remain, the first of them takes its place (terminal/sharedDoor.ts).
create table door_shares (
  shipment_id uuid primary key references shipments (id),
  door_id uuid not null references doors (id) on delete cascade,
  station_id uuid not null references stations (id) on delete cascade,
  since timestamptz not null default now()
);
create index door_shares_door on door_shares (door_id);

-- A door's contents changed: the kiosk's cabinet and its offline pickup set (whose version
-- is the cabinet version) must be read again, as for door_occupancy.
create trigger door_shares_cabinet_version after insert or update or delete on door_shares
  for each row execute function bump_cabinet_version();

-- One code a door, not one a parcel: a parcel that joined a door carries the lead's code
-- hash. The unique index keeps a code to one door (the leads); the deposit's own clash
-- check, under the station lock, covers every parcel awaiting pickup.
alter table shipments add column joined_door boolean not null default false;
drop index shipments_active_pickup_code;
create unique index shipments_active_pickup_code
  on shipments (destination_station_id, pickup_code_hash)
  where status = 'ready_for_pickup' and not joined_door;
