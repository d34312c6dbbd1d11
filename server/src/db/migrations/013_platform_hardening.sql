-- A pickup code lives in an SMS row only while the row may still be sent. Whatever makes
-- the row final (sent, set aside for a sandbox, cancelled by an undo, given up after its
-- last attempt, refused by the provider), its stored text loses every eight-digit run,
-- by whichever writer: one rule, here. The pattern is redactCodes' (sms/texts.ts):
-- eight ASCII digits not touching another letter, digit or underscore.
create function outbox_redact_codes() returns trigger language plpgsql as $$
begin
  new.payload := jsonb_set(
    new.payload, '{text}',
    to_jsonb(regexp_replace(new.payload->>'text',
                            '(?<![0-9A-Za-z_])[0-9]{8}(?![0-9A-Za-z_])', '********', 'g')));
  return new;
end $$;

create trigger outbox_redact_codes
  before insert or update on outbox
  for each row
  when (new.channel = 'sms' and (new.delivered_at is not null or new.failed_at is not null)
        and jsonb_typeof(new.payload->'text') = 'string')
  execute function outbox_redact_codes();

-- Rows already final keep no code either.
update outbox set payload = payload
 where channel = 'sms' and (delivered_at is not null or failed_at is not null);

-- A parcel's history never runs backwards nor before its booking. A status reported at a
-- time before the parcel's previous event (a kiosk clock that is off, a report queued
-- across a clock change) cannot be true: its effective time is the time of receipt (never
-- before the previous event), and the time as reported is kept beside it. One function,
-- used by this trigger for every status change and by the late-collection judgement.
create function effective_event_time(reported timestamptz, previous timestamptz)
returns timestamptz language sql stable as $$
  select case when previous is null or reported >= previous then reported
              else greatest(now(), previous) end $$;

alter table shipments add column status_reported_at timestamptz;
alter table tracking_events add column reported_at timestamptz;

create function clamp_status_time() returns trigger language plpgsql as $$
declare
  effective timestamptz := effective_event_time(new.status_at, old.status_at);
begin
  if effective = new.status_at then
    new.status_reported_at := null;
    return new;
  end if;
  new.status_reported_at := new.status_at;
  -- The dates the writer set to the reported time follow the status.
  if new.deposited_at = new.status_at then new.deposited_at := effective; end if;
  if new.collected_at = new.status_at then new.collected_at := effective; end if;
  new.status_at := effective;
  return new;
end $$;
create trigger shipments_clamp_status_time before update of status on shipments
  for each row when (old.status is distinct from new.status)
  execute function clamp_status_time();

create or replace function record_tracking_event() returns trigger language plpgsql as $$
begin
  insert into tracking_events (shipment_id, status, occurred_at, station_id, reported_at)
  values (new.id, new.status, new.status_at,
          case when new.status = 'booked' then null else new.destination_station_id end,
          new.status_reported_at);
  return null;
end $$;

-- The merchant limit is now the terminals' exact sliding window (rate_limit_windows,
-- bucket 'merchant'): the per-minute counters of the old estimate go.
drop table merchant_rate_windows;
