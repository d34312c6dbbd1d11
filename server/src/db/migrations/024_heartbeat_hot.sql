-- Heartbeats as HOT updates (issue 28). Every kiosk heartbeats each minute (466 a second
-- at the network's busiest hour), and each wrote `last_heartbeat_at`, which the liveness
-- index held (and `status`, in its predicate): so every heartbeat put a new entry in each
-- of the table's five indexes and their WAL. With no index on what a heartbeat writes,
-- PostgreSQL updates the row in place on its page (a heap-only tuple) and touches no
-- index; the free space a page keeps for that is the fill factor's 30 %.
--
-- The index served one reader: the liveness sweep, every `SWEEP_INTERVAL_MS` per instance,
-- which now reads the table through (28,000 terminals: a few milliseconds).
drop index terminals_liveness;
alter table terminals set (fillfactor = 70);
