-- What a kiosk's door supervision saw (docs/terminal-extensions.md): a door found open at
-- an unlock, opened with no one at it, a pickup it could not confirm, an unlock its board
-- fell silent after; a lock board whose polarity is suspect or that is not as commissioned.
-- One row per kiosk event id: a resend is recorded once.
create table door_events (
  id bigint generated always as identity primary key,
  terminal_id uuid not null references terminals (id),
  station_id uuid not null references stations (id),
  event_id uuid not null,
  kind text not null check (kind in ('found_open', 'opened_unseen', 'unsettled', 'unlock_unknown',
                                     'suspect_polarity', 'board_changed')),
  -- Door events: the door, its item sensor, the visit under way and the parcel concerned
  -- as the kiosk knew them (the shipment id as sent: no reference, it is the kiosk's word).
  position integer,
  item_present boolean,
  visit text check (visit in ('pickup', 'deposit', 'return', 'collect')),
  cause text,
  tracking_number text,
  shipment_id uuid,
  -- Board events: the board and its doors; what differs from commissioning.
  board integer,
  positions integer[],
  differences text[],
  occurred_at timestamptz not null,
  received_at timestamptz not null default now(),
  unique (terminal_id, event_id),
  check ((position is null) = (board is not null))
);
create index door_events_station on door_events (station_id, occurred_at);
