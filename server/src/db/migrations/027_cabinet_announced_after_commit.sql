-- A station's new cabinet version is announced (NOTIFY locker_cabinet) by the server after
-- the commit, from an asynchronous-commit connection, when the transaction says so
-- (issue 28; docs/decisions.md, "Cabinet versions are announced after the commit"). A
-- committing NOTIFY takes one lock for the whole database and holds it through the
-- commit's WAL flush: deposits, collections and returns queued on it one flush at a
-- time, the hot station's four couriers behind each other. Every other writer (operators,
-- the admin CLI, offline conflicts, migrations) is announced by this trigger, as before.
create or replace function notify_station_changed() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    perform pg_notify('locker_station', old.id::text);
  elsif (old.code, old.name, old.support_phone, old.idle_timeout_seconds, old.free_storage_hours)
        is distinct from (new.code, new.name, new.support_phone, new.idle_timeout_seconds, new.free_storage_hours) then
    perform pg_notify('locker_station', new.id::text);
  elsif old.cabinet_version <> new.cabinet_version
        and coalesce(current_setting('locker.cabinet_announce', true), '') <> 'after_commit' then
    perform pg_notify('locker_cabinet', new.id::text || ' ' || new.cabinet_version::text);
  end if;
  return null;
end $$;
