-- Events were numbered by a counter on the organization row (007): every event of an
-- organization took that row's lock until its transaction committed, so all of a large
-- merchant's stations waited on one another. Now the number comes from a sequence, and
-- the order readers page in is (xid, seq): the writing transaction's id, then the
-- number. The events API only answers events whose transaction id is below the oldest
-- one still running (pg_snapshot_xmin): every event ordered before them has committed or
-- never will, so a reader paging by the last id it processed still never skips one that
-- commits late. Nothing is locked to get there.
create sequence events_seq;
select setval('events_seq', coalesce((select max(seq) from events), 0) + 1, false);
alter table events alter column seq set default nextval('events_seq');
alter sequence events_seq owned by events.seq;

-- Events before this migration keep their order (by their old numbers) and come first:
-- '0' is below every transaction id.
alter table events add column xid xid8;
update events set xid = '0';
alter table events alter column xid set default pg_current_xact_id();
alter table events alter column xid set not null;

alter table events drop constraint events_organization_id_seq_key;
create index events_organization_order on events (organization_id, xid, seq);
alter table organizations drop column event_seq;
