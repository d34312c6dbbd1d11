-- Operations (issue 23): operator accounts and sessions, the audit log, door service
-- reasons, and alerts with a lifecycle (open → acknowledged → resolved), one open alert
-- per condition, announced on commit (LISTEN locker_alert) and queued for the
-- operations webhook.

-- Operators ------------------------------------------------------------------------------

create table operators (
  id uuid primary key default gen_random_uuid(),
  email text not null unique check (email = lower(email) and length(email) between 3 and 254),
  role text not null check (role in ('admin', 'operations', 'support', 'technician')),
  -- argon2id (PHC string); null until the operator has used the set-up token.
  password_hash text,
  -- SHA-256 of the one-time set-up token printed when the account was made or reset.
  setup_token_hash bytea unique,
  setup_expires_at timestamptz,
  -- TOTP secrets, encrypted (AES-256-GCM): a hash could not check a code. `pending`
  -- between the first sign-in and the first code that confirms it.
  totp_secret text,
  totp_pending_secret text,
  -- The last time step whose code was accepted: each code works once.
  totp_last_step bigint,
  deactivated_at timestamptz,
  created_at timestamptz not null default now(),
  created_by text not null
);

-- The stations a technician may act on (other roles are not scoped by station).
create table operator_stations (
  operator_id uuid not null references operators (id),
  station_id uuid not null references stations (id) on delete cascade,
  primary key (operator_id, station_id)
);

create table operator_recovery_codes (
  operator_id uuid not null references operators (id),
  code_hash bytea not null,
  used_at timestamptz,
  primary key (operator_id, code_hash)
);

-- Opaque session tokens, kept as SHA-256. Times come from the server's clock.
create table operator_sessions (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  operator_id uuid not null references operators (id),
  -- 'password': only the second factor (or its set-up) may follow; 'complete': signed in.
  stage text not null check (stage in ('password', 'complete')),
  created_at timestamptz not null,
  last_seen_at timestamptz not null,
  -- When a TOTP or recovery code was last entered in this session (step-up).
  second_factor_at timestamptz,
  ended_at timestamptz,
  address text,
  user_agent text
);
create index operator_sessions_live on operator_sessions (operator_id) where ended_at is null;

-- Audit ----------------------------------------------------------------------------------

-- Every operator action, append-only: the triggers below refuse any change or removal,
-- whoever asks (the server, the CLI or psql as the service's role).
create table audit_log (
  id bigint generated always as identity primary key,
  at timestamptz not null default clock_timestamp(),
  actor_id uuid,
  -- The operator's e-mail, `cli:<os user>`, or what was typed at a failed sign-in.
  actor text not null,
  role text not null,
  action text not null,
  target_type text,
  target text,
  reason text,
  outcome text not null check (outcome in ('ok', 'refused', 'failed')),
  detail jsonb,
  correlation_id text,
  address text
);
create index audit_log_at on audit_log (at desc, id desc);
create index audit_log_actor on audit_log (actor, at desc, id desc);
create index audit_log_action on audit_log (action, at desc, id desc);

create function refuse_audit_change() returns trigger language plpgsql as $$
begin
  raise exception 'the audit log is append-only: % refused', tg_op using errcode = '42501';
end $$;
create trigger audit_log_append_only before update or delete on audit_log
  for each row execute function refuse_audit_change();
create trigger audit_log_no_truncate before truncate on audit_log
  for each statement execute function refuse_audit_change();

-- Doors: why, since when and by whom out of service; the live sensor state ------------

alter table doors
  add column out_of_service_reason text,
  add column out_of_service_since timestamptz,
  add column out_of_service_by text,
  -- Filled by the live link to the kiosk (issue 23, link side); null until it reports.
  add column sensor_state text,
  add column sensor_seen_at timestamptz;
update doors set out_of_service_reason = 'not recorded (before migration 010)',
                 out_of_service_since = now(), out_of_service_by = 'unknown'
 where out_of_service;

create table door_service_history (
  id bigint generated always as identity primary key,
  door_id uuid not null references doors (id) on delete cascade,
  station_id uuid not null references stations (id) on delete cascade,
  out_of_service boolean not null,
  reason text,
  by text,
  at timestamptz not null default now()
);
create index door_service_history_door on door_service_history (door_id, at desc);

-- Whoever changes a door's service state sets why and who in the same update (both ways);
-- a writer that does not still leaves a since, a history row and "not recorded".
create function door_service_changed() returns trigger language plpgsql as $$
begin
  if new.out_of_service then
    new.out_of_service_since := now();
    new.out_of_service_reason := coalesce(new.out_of_service_reason, 'not recorded');
    new.out_of_service_by := coalesce(new.out_of_service_by, 'unknown');
  end if;
  insert into door_service_history (door_id, station_id, out_of_service, reason, by)
  values (new.id, new.station_id, new.out_of_service, new.out_of_service_reason,
          coalesce(new.out_of_service_by, 'unknown'));
  if not new.out_of_service then
    new.out_of_service_reason := null;
    new.out_of_service_since := null;
    new.out_of_service_by := null;
  end if;
  return new;
end $$;
create trigger doors_service_changed before update of out_of_service on doors
  for each row when (old.out_of_service is distinct from new.out_of_service)
  execute function door_service_changed();

-- The cabinet ETag changes only with what the grid shows: not with a sensor reading or
-- a service reason, which the link may write many times a minute.
drop trigger doors_cabinet_version on doors;
create trigger doors_cabinet_version after insert or delete on doors
  for each row execute function bump_cabinet_version();
create trigger doors_cabinet_version_update after update on doors
  for each row when ((old.station_id, old.position, old.code, old.size, old.out_of_service)
                     is distinct from (new.station_id, new.position, new.code, new.size, new.out_of_service))
  execute function bump_cabinet_version();

-- The overview counts doors out of service across the fleet without reading every door.
create index doors_out_of_service on doors (station_id) where out_of_service;

-- Terminals: whether the live link is up (filled by the link side; null: not connected).
alter table terminals add column link_connected_at timestamptz;
create index terminals_station on terminals (station_id);

-- Parcel search: by the last digits of the phone, by the merchant's reference.
create index shipments_phone_suffix on shipments (reverse(recipient_phone) text_pattern_ops);
create index shipments_merchant_reference on shipments (merchant_order_reference)
  where merchant_order_reference is not null;

-- Alerts ---------------------------------------------------------------------------------

alter table alerts
  add column door_id uuid references doors (id) on delete set null,
  -- What the alert is about: one open (or acknowledged) alert per condition.
  add column condition_key text,
  add column severity text not null default 'warning'
    check (severity in ('critical', 'warning', 'info')),
  add column status text not null default 'open'
    check (status in ('open', 'acknowledged', 'resolved')),
  add column occurrences integer not null default 1,
  add column last_seen_at timestamptz,
  add column acknowledged_at timestamptz,
  add column acknowledged_by text,
  add column acknowledge_note text,
  add column resolved_at timestamptz,
  add column resolved_by text,
  add column resolve_note text,
  -- 'operator': someone resolved it; 'cleared': the condition went away by itself.
  add column resolution text check (resolution in ('operator', 'cleared', 'superseded'));

create function alert_condition_key(kind text, terminal_id uuid, station_id uuid, door_id uuid)
returns text language sql immutable as $$
  select kind || ':' || coalesce(door_id::text, terminal_id::text, station_id::text, '-')
$$;

create function alert_severity(kind text) returns text language sql immutable as $$
  select case
    when kind in ('terminal_offline', 'pickup_brute_force', 'return_brute_force',
                  'courier_brute_force') then 'critical'
    when kind in ('webhook_endpoint_disabled') then 'info'
    else 'warning' end
$$;

-- Alerts raised before this migration: the newest per condition stays open with the
-- count of them all; older duplicates are resolved as superseded.
update alerts set condition_key = alert_condition_key(kind, terminal_id, station_id, door_id),
                  severity = alert_severity(kind), last_seen_at = created_at;
with ranked as (
  select id, row_number() over (partition by condition_key order by created_at desc, id desc) as n,
         count(*) over (partition by condition_key) as total
    from alerts)
update alerts a
   set status = case when r.n = 1 then 'open' else 'resolved' end,
       occurrences = case when r.n = 1 then r.total else 1 end,
       resolution = case when r.n = 1 then null else 'superseded' end,
       resolved_at = case when r.n = 1 then null else a.created_at end,
       resolved_by = case when r.n = 1 then null else 'migration 010' end
  from ranked r where r.id = a.id;
alter table alerts alter column condition_key set not null;
alter table alerts alter column last_seen_at set not null;
alter table alerts alter column last_seen_at set default now();
create unique index alerts_one_open_per_condition on alerts (condition_key) where status <> 'resolved';
create index alerts_inbox on alerts (status, severity, created_at) where status <> 'resolved';
create index alerts_station on alerts (station_id, status);
create index alerts_newest on alerts (created_at desc, id desc);

-- An alert as the operations API, its stream and its webhook show it: one shape, made here
-- so the webhook body queued by a trigger is the API's shape exactly.
create function alert_document(a alerts) returns jsonb language sql stable as $$
  select jsonb_build_object(
    'id', a.id::text,
    'kind', a.kind,
    'severity', a.severity,
    'status', a.status,
    'message', a.message,
    'station_id', a.station_id,
    'station_code', (select code from stations where id = a.station_id),
    'terminal_id', a.terminal_id,
    'door', (select position from doors where id = a.door_id),
    'occurrences', a.occurrences,
    'created_at', to_char(a.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'last_seen_at', to_char(a.last_seen_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'acknowledged', case when a.acknowledged_at is null then null else jsonb_build_object(
       'at', to_char(a.acknowledged_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       'by', a.acknowledged_by, 'note', a.acknowledge_note) end,
    'resolved', case when a.resolved_at is null then null else jsonb_build_object(
       'at', to_char(a.resolved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       'by', a.resolved_by, 'note', a.resolve_note, 'resolution', a.resolution) end)
$$;

-- Where alert events go besides the stream: set by the server from OPS_WEBHOOK_URL at
-- start; while it is absent nothing is queued.
create table ops_webhook_target (
  only_one boolean primary key default true check (only_one),
  url text not null
);

alter table outbox drop constraint outbox_channel_check;
alter table outbox add constraint outbox_channel_check
  check (channel in ('sms', 'webhook', 'ops_webhook'));

create function announce_alert(a alerts, event text) returns void language plpgsql as $$
begin
  perform pg_notify('locker_alert', json_build_object('id', a.id::text, 'event', event)::text);
  if event <> 'occurred' and exists (select 1 from ops_webhook_target) then
    insert into outbox (channel, payload)
    select 'ops_webhook', jsonb_build_object(
             'event_id', e.id, 'type', 'alert.' || event,
             'body', jsonb_build_object(
               'id', e.id, 'type', 'alert.' || event, 'api_version', '2026-01-01',
               'created_at', to_char(now() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'data', jsonb_build_object('alert', alert_document(a)))::text)
      from (select gen_random_uuid()::text as id) e;
  end if;
end $$;

-- Every writer of alerts (terminal paths, the liveness sweep, the outbox) inserts as it
-- always did; this folds a repeat of an open condition into that alert (occurrences,
-- last seen) instead of a new row. The advisory lock makes two instances raising the
-- same condition at once agree on one alert.
create function alert_fold_repeat() returns trigger language plpgsql as $$
declare
  repeated alerts;
begin
  new.condition_key := coalesce(new.condition_key,
    alert_condition_key(new.kind, new.terminal_id, new.station_id, new.door_id));
  new.severity := alert_severity(new.kind);
  new.status := 'open';
  new.last_seen_at := new.created_at;
  perform pg_advisory_xact_lock(hashtextextended('alert ' || new.condition_key, 0));
  update alerts set occurrences = occurrences + 1, last_seen_at = now(), message = new.message
   where condition_key = new.condition_key and status <> 'resolved'
  returning * into repeated;
  if found then
    return null;
  end if;
  return new;
end $$;
create trigger alerts_fold_repeat before insert on alerts
  for each row execute function alert_fold_repeat();

create function alert_announce_insert() returns trigger language plpgsql as $$
begin
  perform announce_alert(new, 'opened');
  return null;
end $$;
create trigger alerts_announce_insert after insert on alerts
  for each row execute function alert_announce_insert();

create function alert_announce_update() returns trigger language plpgsql as $$
begin
  perform announce_alert(new, case when new.status = old.status then 'occurred' else new.status end);
  return null;
end $$;
create trigger alerts_announce_update after update on alerts
  for each row execute function alert_announce_update();

-- Conditions that clear by themselves resolve their alert in the same transaction.
create function resolve_terminal_back_online() returns trigger language plpgsql as $$
begin
  update alerts set status = 'resolved', resolved_at = now(), resolved_by = 'system',
                    resolution = 'cleared', resolve_note = 'the terminal sent a heartbeat again'
   where kind = 'terminal_offline' and terminal_id = new.id and status <> 'resolved';
  return null;
end $$;
create trigger terminals_back_online after update of status on terminals
  for each row when (old.status = 'offline' and new.status = 'online')
  execute function resolve_terminal_back_online();

create function resolve_door_back_in_service() returns trigger language plpgsql as $$
begin
  update alerts set status = 'resolved', resolved_at = now(), resolved_by = 'system',
                    resolution = 'cleared', resolve_note = 'the door is back in service'
   where kind = 'door_fault' and door_id = new.id and status <> 'resolved';
  return null;
end $$;
create trigger doors_back_in_service after update of out_of_service on doors
  for each row when (old.out_of_service and not new.out_of_service)
  execute function resolve_door_back_in_service();
