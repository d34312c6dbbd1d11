-- A return's door is found by its return id (the return's start resumes a held door, its
-- confirm turns the hold into the stored return): without an index each was a scan of
-- every occupied door in the network (337,000 rows, ≈50 ms of PostgreSQL, in the
-- peak-hour benchmark). Deliveries have no return id and are left out.
create index door_occupancy_return on door_occupancy (return_id) where return_id is not null;
