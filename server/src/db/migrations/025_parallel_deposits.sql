-- Deposits at one station run side by side (issue 28). Every path that changed a door
-- took the station's row lock first, for its whole transaction, so four couriers at one
-- station were served one after another: the hot station's p50 was four times a
-- deposit's anywhere else. Now:
--
-- * The station lock has two modes, an advisory lock on the station: deposits take it
--   shared, every other path that changes a door, a reservation or a pickup code takes it
--   exclusively (and the row lock after it, as before). A deposit never runs beside a
--   pickup, a return, a reservation or a door change at its station; deposits run beside
--   each other.
-- * Deposits keep out of each other's doors by the door's row: a deposit locks the door
--   it chooses (`for no key update skip locked`), so another passes over it, and a door
--   carries its occupancy (`occupied`, kept by a trigger) so a deposit whose snapshot is
--   older than the fill of a door it reaches reads the door's row as committed and passes
--   over it too. The occupancy's primary key stays the proof: a door never holds two.
-- * The cabinet version still counts every change of a door's contents, one per row, but
--   a deposit's bump is made at its commit (a deferred trigger), so the station's row is
--   locked only from there to the commit's end. The exclusive paths make the bump
--   immediate again (`lock_station`), so what they read of the version inside their
--   transaction is still what their commit makes.

alter table doors add column occupied boolean not null default false;
update doors d set occupied = true where exists (select 1 from door_occupancy o where o.door_id = d.id);

create function door_occupancy_mark() returns trigger language plpgsql as $$
begin
  if tg_op in ('DELETE', 'UPDATE') then
    -- A door deleted with its contents (the cascade) is gone already: nothing to mark.
    update doors set occupied = false where id = old.door_id and occupied;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    update doors set occupied = true where id = new.door_id and not occupied;
  end if;
  return null;
end $$;
create trigger door_occupancy_mark after insert or delete or update of door_id on door_occupancy
  for each row execute function door_occupancy_mark();

drop trigger door_occupancy_cabinet_version on door_occupancy;
create constraint trigger door_occupancy_cabinet_version
  after insert or update or delete on door_occupancy
  deferrable initially deferred
  for each row execute function bump_cabinet_version();

-- The exclusive mode: no deposit at the station runs meanwhile, and the station's row is
-- locked after it (the lock order: the advisory lock, then the station's row, then the
-- rest). The occupancy's cabinet bump is made as each change is (not at commit), so the
-- version read in the transaction is the one its commit makes.
create function lock_station(station uuid) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('station ' || station::text, 0));
  set constraints door_occupancy_cabinet_version immediate;
  perform 1 from stations where id = station for no key update;
end $$;

-- The deposits' mode: beside each other, never beside an exclusive path.
create function lock_station_shared(station uuid) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock_shared(hashtextextended('station ' || station::text, 0));
end $$;
