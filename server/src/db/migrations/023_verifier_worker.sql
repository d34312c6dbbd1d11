-- Offline pickup verifiers made off the request path (issue 28; docs/decisions.md, "A
-- locker on its own"). A deposit no longer spends a 16 MiB scrypt: it keeps the code
-- sealed for the verifier worker (server/src/terminal/verifierSeal.ts: AES-256-GCM under a
-- key derived from the pickup-code secret, the shipment id as associated data), and the
-- worker makes the verifier and erases the ciphertext in one statement.
alter table shipments add column verifier_code_sealed bytea;

-- The worker's queue, oldest deposit first: only the few parcels awaiting a verifier.
create index shipments_awaiting_verifier on shipments (deposited_at)
  where verifier_code_sealed is not null;

-- Every form of the code dies with it (migration 015): the worker's ciphertext too, so a
-- parcel collected, undone or taken out before the worker reached it gets no verifier.
create or replace function code_forms_die() returns trigger language plpgsql as $$
begin
  new.offline_verifier := null;
  new.recipient_link_hash := null;
  new.pickup_code_sealed := null;
  new.verifier_code_sealed := null;
  return new;
end $$;
drop trigger shipments_code_forms_die on shipments;
create trigger shipments_code_forms_die before update on shipments
  for each row when (new.pickup_code_hash is null
                     and (new.offline_verifier is not null or new.recipient_link_hash is not null
                          or new.pickup_code_sealed is not null
                          or new.verifier_code_sealed is not null))
  execute function code_forms_die();

-- How many verifiers the worker has made for each station: with the cabinet version, the
-- version of the station's offline pickup set (its ETag), which now also changes when a
-- verifier appears, without bumping the cabinet version (every kiosk would re-read
-- /cabinet). Counted under the row's lock, so versions commit in order; announced to
-- every instance on commit, as the cabinet version is.
create table station_verifier_versions (
  station_id uuid primary key references stations (id) on delete cascade,
  version bigint not null check (version > 0)
);

create function announce_verifier_version() returns trigger language plpgsql as $$
begin
  perform pg_notify('locker_verifiers', new.station_id::text || ' ' || new.version::text);
  return null;
end $$;
create trigger station_verifier_versions_announce
  after insert or update on station_verifier_versions
  for each row execute function announce_verifier_version();
