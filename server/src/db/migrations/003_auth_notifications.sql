-- Server instances cache terminal authentication and cabinet versions; these
-- notifications (delivered on commit) keep every instance's cache exact.

create function notify_terminal_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('locker_terminal', coalesce(old.id, new.id)::text);
  return null;
end $$;
-- Heartbeats update last_heartbeat_at constantly; only what authentication reads counts.
create trigger terminals_notify_update after update on terminals
  for each row when ((old.status, old.revoked_at, old.station_id, old.token_hash)
                     is distinct from (new.status, new.revoked_at, new.station_id, new.token_hash))
  execute function notify_terminal_changed();
create trigger terminals_notify_delete after delete on terminals
  for each row execute function notify_terminal_changed();

create function notify_station_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('locker_station', old.id::text);
  elsif (old.code, old.name, old.support_phone, old.idle_timeout_seconds, old.free_storage_hours)
        is distinct from (new.code, new.name, new.support_phone, new.idle_timeout_seconds, new.free_storage_hours) then
    perform pg_notify('locker_station', new.id::text);
  elsif old.cabinet_version <> new.cabinet_version then
    perform pg_notify('locker_cabinet', new.id::text || ' ' || new.cabinet_version::text);
  end if;
  return null;
end $$;
create trigger stations_notify after update or delete on stations
  for each row execute function notify_station_changed();
