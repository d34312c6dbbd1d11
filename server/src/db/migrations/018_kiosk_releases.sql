-- Signed, staged kiosk updates (issue 26).
--
-- A release is the bundle (tar.gz of the deployed kiosk) with its manifest, signed by the
-- operator's release key (Ed25519). The service stores and serves them as uploaded and
-- verifies nothing: the kiosk does, with the public key it holds. A service that was
-- broken into can withhold releases, not make one a kiosk installs.
create table kiosk_releases (
  version text primary key check (version ~ '^[0-9A-Za-z][0-9A-Za-z.+_-]{0,63}$'),
  bundle bytea not null,
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  size integer not null check (size > 0),
  signature text not null,
  created_at timestamptz not null default now(),
  created_by text not null
);

-- The one release being rolled out, and its rings: the pilot stations, then a share of
-- every terminal (stable per terminal: a terminal once in stays in as the share grows),
-- 100 for all. One row: assigning another version replaces it.
create table kiosk_rollout (
  singleton boolean primary key default true check (singleton),
  version text not null references kiosk_releases (version),
  pilot_stations text[] not null default '{}',
  percent integer not null default 0 check (percent between 0 and 100),
  updated_at timestamptz not null default now(),
  updated_by text not null
);

-- What each kiosk said became of a release: running (healthy on it), rolled_back (went
-- back by itself), refused (bad signature or digest: never installed).
create table kiosk_update_reports (
  id bigserial primary key,
  terminal_id uuid not null references terminals (id) on delete cascade,
  version text not null,
  outcome text not null check (outcome in ('running', 'rolled_back', 'refused')),
  detail text,
  created_at timestamptz not null default now()
);
create index kiosk_update_reports_terminal on kiosk_update_reports (terminal_id, id desc);
