// The kiosk database's migrations: fixed SQL, numbered by position (migration N is
// MIGRATIONS[N - 1]), forward-only. A migration that shipped is never edited: a database
// that ran it keeps what it did. `user_version` records how far a database has come.

export const MIGRATIONS: readonly string[] = [
  // 1: the confirm queue, and confirms set aside after 7 days undelivered.
  `create table confirms (
     id integer primary key,
     kind text not null check (kind in ('door', 'return')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   create table stuck_confirms (
     id integer primary key,
     kind text not null,
     body text not null,
     occurred_at text not null,
     reason text not null,
     set_aside_at integer not null
   ) strict;`,
  // 2: a courier taking a return out of the locker is confirmed through the queue too. SQLite
  // cannot change a CHECK constraint, so the table is rebuilt with its rows.
  `create table confirms_v2 (
     id integer primary key,
     kind text not null check (kind in ('door', 'return', 'return_taken')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   insert into confirms_v2 select * from confirms;
   drop table confirms;
   alter table confirms_v2 rename to confirms;`,
  // 3: a deposit whose door the courier shut empty is undone through the queue too.
  `create table confirms_v3 (
     id integer primary key,
     kind text not null check (kind in ('door', 'return', 'return_taken', 'deposit_undo')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   insert into confirms_v3 select * from confirms;
   drop table confirms;
   alter table confirms_v3 rename to confirms;`,
  // 4: door faults are reported through the queue too (with the time the door failed),
  // and the last configuration the service sent is kept for the next boot.
  `create table confirms_v4 (
     id integer primary key,
     kind text not null check (kind in ('door', 'return', 'return_taken', 'deposit_undo', 'door_fault')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   insert into confirms_v4 select * from confirms;
   drop table confirms;
   alter table confirms_v4 rename to confirms;
   create table terminal_config (
     id integer primary key check (id = 1),
     body text not null,
     received_at text not null
   ) strict;`,
  // 5: what the door supervision saw (a door found open, opened with no one at it, a pickup
  // the kiosk cannot confirm, a board silent after the pulse; a board's polarity or
  // settings) is reported through the queue too.
  `create table confirms_v5 (
     id integer primary key,
     kind text not null check (kind in ('door', 'return', 'return_taken', 'deposit_undo', 'door_fault',
                                        'door_event', 'cabinet_event')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   insert into confirms_v5 select * from confirms;
   drop table confirms;
   alter table confirms_v5 rename to confirms;`,
  // 6: the locker on its own through an outage (offlinePickup.ts, offlineDeposit.ts). The
  // station's pickup verifiers as the service last sent them (never a code), its doors,
  // the parcels it expects and its couriers' verifiers, the ETag of each set, the times
  // of recent pickup and courier attempts (sliding windows kept across restarts), the
  // parcels this kiosk handed out and took in on its own (their story kept whatever the
  // service answers), and deposits made on its own reported through the queue.
  `create table offline_pickups (
     shipment_id text primary key,
     door integer not null,
     collect_until text not null,
     verifier text not null
   ) strict;
   create table offline_sets (
     name text primary key,
     etag text,
     version text not null,
     received_at integer not null
   ) strict;
   create table attempts (
     id integer primary key,
     kind text not null check (kind in ('pickup', 'courier')),
     at integer not null
   ) strict;
   create table offline_doors (
     position integer primary key,
     size text check (size in ('S', 'M', 'L', 'XL')),
     free integer not null
   ) strict;
   create table offline_expected (
     tracking_number text primary key,
     size text not null check (size in ('S', 'M', 'L', 'XL'))
   ) strict;
   create table offline_couriers (
     verifier text not null
   ) strict;
   create table offline_deposits (
     tracking_number text primary key,
     door integer not null,
     state text not null check (state in ('queued', 'recorded', 'undone', 'service_404')),
     deposited_at text not null,
     note text
   ) strict;
   create table confirms_v6 (
     id integer primary key,
     kind text not null check (kind in ('door', 'return', 'return_taken', 'deposit_undo', 'door_fault',
                                        'door_event', 'cabinet_event', 'offline_deposit')),
     body text not null,
     occurred_at text not null,
     attempts integer not null default 0,
     next_attempt_at integer not null,
     last_error text,
     created_at integer not null
   ) strict;
   insert into confirms_v6 select * from confirms;
   drop table confirms;
   alter table confirms_v6 rename to confirms;
   create table offline_handouts (
     shipment_id text primary key,
     door integer not null,
     state text not null check (state in ('opened', 'collected', 'left', 'service_404')),
     opened_at text not null,
     closed_at text,
     note text
   ) strict;`,
  // 7: the live link. Each command's nonce is remembered until the command expires, so a
  // replayed command runs nothing; each outcome is kept until the service acknowledges it.
  `create table link_nonces (
     nonce text primary key,
     command_id text not null,
     expires_at integer not null
   ) strict;
   create table link_outcomes (
     command_id text primary key,
     body text not null,
     created_at integer not null
   ) strict;`,
  // 8: parcels whose door this kiosk opened online for their code, or gave empty to another
  // parcel: no code of the offline pickup set opens them (offlinePickup.ts, `bar`).
  `create table offline_barred (
     shipment_id text primary key,
     barred_at integer not null
   ) strict;`,
];
