-- A locker that works on its own through an outage, and pickup without typing
-- (docs/terminal-extensions.md, "Offline operation"; docs/decisions.md).

-- Each parcel awaiting pickup carries, beside its code's HMAC, the code's offline
-- verifier: a slow, salted, station-keyed scrypt hash its station's kiosk keeps to check
-- the code while the service is unreachable. Made when the code is drawn (the only moment
-- the service knows the code); null for parcels deposited before.
-- The pickup SMS links to a page for the recipient with the code as a QR code. The link's
-- token is kept only as a hash, and the code only sealed with a key derived from the
-- token, so the database reveals neither.
alter table shipments
  add column offline_verifier text,
  add column recipient_link_hash bytea,
  add column pickup_code_sealed bytea;
create unique index shipments_recipient_link on shipments (recipient_link_hash)
  where recipient_link_hash is not null;

-- Every form of the code dies with it: whatever clears the code's hash clears them too.
create function code_forms_die() returns trigger language plpgsql as $$
begin
  new.offline_verifier := null;
  new.recipient_link_hash := null;
  new.pickup_code_sealed := null;
  return new;
end $$;
create trigger shipments_code_forms_die before update on shipments
  for each row when (new.pickup_code_hash is null
                     and (new.offline_verifier is not null or new.recipient_link_hash is not null
                          or new.pickup_code_sealed is not null))
  execute function code_forms_die();

-- A courier's number as a verifier (network-wide salt), made once, the first time a
-- station's offline deposit set needs it: couriers who deposit at a station may deposit
-- there while the service is unreachable. The number itself stays the credential online.
alter table couriers add column offline_verifier text;
