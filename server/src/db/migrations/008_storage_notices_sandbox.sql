-- Reminders to the recipient before free storage ends and before the parcel expires
-- (hours before each; null: none), and what was already sent, so each goes once.
alter table stations
  add column free_storage_reminder_hours integer check (free_storage_reminder_hours > 0),
  add column expiry_reminder_hours integer check (expiry_reminder_hours > 0),
  add constraint stations_free_reminder_inside check (free_storage_reminder_hours < free_storage_hours),
  add constraint stations_expiry_reminder_inside check (expiry_reminder_hours < max_storage_hours);

alter table shipments
  add column free_storage_reminded_at timestamptz,
  add column expiry_reminded_at timestamptz,
  -- When `shipment.expired` was recorded (the status stays ready_for_pickup: decisions.md).
  add column expired_at timestamptz;

-- Finds deliveries awaiting pickup whose notices are due without reading every shipment.
create index shipments_awaiting_notice on shipments (deposited_at)
  where status = 'ready_for_pickup' and expired_at is null;

-- Sandbox organizations: their shipments go only to their own simulated stations, which
-- no terminal can ever belong to, and no SMS of theirs is ever sent.
alter table organizations add column sandbox boolean not null default false;
alter table stations
  add column sandbox_organization_id uuid references organizations (id) on delete cascade;

create function refuse_sandbox_terminal() returns trigger language plpgsql as $$
begin
  if exists (select 1 from stations where id = new.station_id and sandbox_organization_id is not null) then
    raise exception 'a sandbox station has no terminals' using errcode = '23514';
  end if;
  return new;
end $$;
create trigger terminals_never_sandbox before insert or update of station_id on terminals
  for each row execute function refuse_sandbox_terminal();
