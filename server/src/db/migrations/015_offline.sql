-- A locker that works on its own through an outage (docs/terminal-extensions.md,
-- "Offline operation"). Each parcel awaiting pickup carries, beside its code's HMAC, the
-- code's offline verifier: a slow, salted, station-keyed scrypt hash its station's kiosk
-- keeps to check the code while the service is unreachable. Made when the code is drawn
-- (the only moment the service knows the code); null for parcels deposited before.
alter table shipments add column offline_verifier text;

-- The verifier dies with the code: whatever clears the code's hash clears it too.
create function offline_verifier_dies() returns trigger language plpgsql as $$
begin
  new.offline_verifier := null;
  return new;
end $$;
create trigger shipments_offline_verifier_dies before update on shipments
  for each row when (new.pickup_code_hash is null and new.offline_verifier is not null)
  execute function offline_verifier_dies();

-- A courier's number as a verifier (network-wide salt), made once, the first time a
-- station's offline deposit set needs it: couriers who deposit at a station may deposit
-- there while the service is unreachable. The number itself stays the credential online.
alter table couriers add column offline_verifier text;
