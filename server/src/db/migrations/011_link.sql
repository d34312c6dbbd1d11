-- The live link to every kiosk (docs/terminal-extensions.md, "The live link").

-- A command to a kiosk is a row, so any instance can issue one and the instance holding
-- the kiosk's connection delivers it: the insert notifies every instance. The service
-- signs the payload when it issues the command (the signature is kept beside it), so
-- whoever can write this table still cannot make a kiosk act.
create table link_commands (
  id uuid primary key,
  station_id uuid not null references stations (id) on delete cascade,
  -- The terminal that took the command (at delivery); null while pending.
  terminal_id uuid references terminals (id) on delete cascade,
  door integer,
  kind text not null
    check (kind in ('open_door', 'door_service', 'refresh_config', 'upload_logs', 'reload_screen')),
  args jsonb not null default '{}',
  nonce text not null unique,
  -- The exact signed text, and its Ed25519 signature.
  payload text not null,
  signature bytea not null,
  issued_by text not null,
  reason text,
  issued_at timestamptz not null,
  expires_at timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'sent', 'done', 'expired')),
  sent_at timestamptz,
  outcome text,
  outcome_detail jsonb,
  outcome_at timestamptz,
  check (expires_at > issued_at)
);
create index link_commands_pending on link_commands (station_id, expires_at)
  where status = 'pending';
create index link_commands_station on link_commands (station_id, issued_at desc);

-- Every instance wakes the connection it holds for the command's station.
create function notify_link_command() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform pg_notify('locker_link_command', new.station_id::text || ' ' || new.id::text);
  elsif new.status in ('done', 'expired') and old.status is distinct from new.status then
    perform pg_notify('locker_link_outcome', new.id::text);
  end if;
  return null;
end $$;
create trigger link_commands_notify after insert or update of status on link_commands
  for each row execute function notify_link_command();

-- What a kiosk uploaded for a log-bundle command: kept for the console to fetch.
create table link_log_bundles (
  command_id uuid primary key references link_commands (id) on delete cascade,
  terminal_id uuid not null references terminals (id) on delete cascade,
  content_type text not null,
  body bytea not null,
  received_at timestamptz not null default now()
);

-- Server instances holding links; one whose seen_at is old has stopped (or died), and
-- the links it held count as disconnected.
create table link_instances (
  id uuid primary key,
  started_at timestamptz not null default now(),
  seen_at timestamptz not null default now()
);

-- Each terminal's link: connected while disconnected_at is null and its instance lives.
create table terminal_links (
  terminal_id uuid primary key references terminals (id) on delete cascade,
  instance_id uuid not null,
  protocol text not null,
  connected_at timestamptz not null,
  disconnected_at timestamptz
);

-- The last state each door's sensors reported over the link, and when it was seen.
create table door_sensor_states (
  station_id uuid not null references stations (id) on delete cascade,
  position integer not null,
  known boolean not null,
  closed boolean,
  item_present boolean,
  in_session boolean not null default false,
  -- When the door was first seen open in its current opening; null while shut.
  open_since timestamptz,
  -- Set once a "left open" alert was raised for this opening.
  left_open_alerted_at timestamptz,
  seen_at timestamptz not null,
  changed_at timestamptz not null,
  primary key (station_id, position)
);
create index door_sensor_states_open on door_sensor_states (open_since)
  where open_since is not null and left_open_alerted_at is null;

-- Migration 010 kept room for the link's state on doors and terminals; it lives in the
-- tables above instead (a state per door with its history of the current opening, a
-- link per terminal judged by its instance's liveness), so those columns go.
alter table doors drop column sensor_state, drop column sensor_seen_at;
alter table terminals drop column link_connected_at;

-- Remote opens beyond the limits (per operator, network-wide) wait for a second admin.
create table link_approvals (
  id uuid primary key,
  station_id uuid not null references stations (id) on delete cascade,
  door integer not null,
  reason text not null,
  requested_by text not null,
  requested_role text not null,
  requested_at timestamptz not null default now(),
  expires_at timestamptz not null,
  approved_by text,
  approved_at timestamptz,
  command_id uuid references link_commands (id)
);

-- The link's alerts: a burst of remote opens is critical; a door left open a warning.
create or replace function alert_severity(kind text) returns text language sql immutable as $$
  select case
    when kind in ('terminal_offline', 'pickup_brute_force', 'return_brute_force',
                  'courier_brute_force', 'remote_open_burst') then 'critical'
    when kind in ('webhook_endpoint_disabled') then 'info'
    else 'warning' end
$$;
