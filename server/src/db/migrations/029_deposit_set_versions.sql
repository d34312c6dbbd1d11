-- The offline deposit set answered 304 from memory, as the pickup set is (issue 28;
-- docs/decisions.md, "The deposit set kept in memory"). The set is the station's doors
-- (the cabinet version follows them), the parcels booked for it, and the verifiers of the
-- active couriers who deposited there in the last 90 whole days. Each instance keeps the
-- ETag of each station's last answer while nothing it was made of has changed: these
-- notifications say when the booked parcels or the couriers did. Notifications only, no
-- version rows: a create in a merchant's bulk call shares a transaction with others,
-- and a row lock held to its commit would stop the call's keyed items of that station.
-- A notifying commit does take the database's one notify lock through its flush (what
-- migration 027 spared deposits): bookings, cancels and reroutes now do.

-- A parcel joined or left the station's booked parcels, or one of them changed its
-- tracking number or size. Not a deposit (booked to ready_for_pickup at the same
-- station): the door it fills bumps the cabinet version in the same commit. That is a
-- rule of the code, not of the database (every such update fills a door or joins one:
-- terminal/deposit.ts, terminal/sharedDoor.ts); a status written by hand without a door
-- is seen within the kept ETag's 15 minutes.
create function booked_parcels_changed() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') and old.status = 'booked' then
    perform pg_notify('locker_bookings', old.destination_station_id::text);
  end if;
  if tg_op in ('INSERT', 'UPDATE') and new.status = 'booked' then
    perform pg_notify('locker_bookings', new.destination_station_id::text);
  end if;
  return null;
end $$;

create trigger shipments_booked_insert after insert on shipments
  for each row when (new.status = 'booked') execute function booked_parcels_changed();
create trigger shipments_booked_update
  after update of status, destination_station_id, tracking_number, parcel_size on shipments
  for each row when ((old.status = 'booked' or new.status = 'booked')
                     and (old.status, old.destination_station_id, old.tracking_number, old.parcel_size)
                         is distinct from
                         (new.status, new.destination_station_id, new.tracking_number, new.parcel_size)
                     and not (old.status = 'booked' and new.status = 'ready_for_pickup'
                              and old.destination_station_id = new.destination_station_id))
  execute function booked_parcels_changed();
create trigger shipments_booked_delete after delete on shipments
  for each row when (old.status = 'booked') execute function booked_parcels_changed();

-- A courier's number, activity or verifier changed: every station's set may hold them
-- (finding the stations they deposited at would read their parcels; a courier changes
-- rarely, and each change makes every kiosk read its set once more). Not a courier's
-- first verifier: a set is kept only once its couriers have theirs (the read makes
-- them first), and a courier joins a station's set by a deposit there, which changes
-- the cabinet version.
create function couriers_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('locker_couriers', '');
  return null;
end $$;

create trigger couriers_changed_update after update of number, active, offline_verifier on couriers
  for each row when ((old.number, old.active) is distinct from (new.number, new.active)
                     or (old.offline_verifier is not null
                         and old.offline_verifier is distinct from new.offline_verifier))
  execute function couriers_changed();
create trigger couriers_changed_delete after delete on couriers
  for each row execute function couriers_changed();
