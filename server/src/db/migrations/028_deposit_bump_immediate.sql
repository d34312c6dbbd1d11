-- A kiosk's deposit is sent to PostgreSQL in one write, BEGIN to COMMIT (issue 28;
-- db/transaction.ts, `inOneWrite`): no round trip to the server lies between its door's
-- statement and its commit any more, which is why migration 025 deferred a deposit's
-- cabinet bump to the commit. The deposits' mode now bumps as the door is filled, as the
-- exclusive paths do: the station's row is held from the door's statement to the commit
-- that follows it in the same write, and the transaction reads the version its own commit
-- makes (instead of a read after the commit, one more round trip). Deposits beside each
-- other at one station still choose their doors side by side and still commit one after
-- another, as they did on the deferred bump.
create or replace function lock_station_shared(station uuid) returns void language plpgsql as $$
begin
  perform pg_advisory_xact_lock_shared(hashtextextended('station ' || station::text, 0));
  set constraints door_occupancy_cabinet_version immediate;
end $$;
