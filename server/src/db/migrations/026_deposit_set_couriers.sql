-- The couriers of a station's deposit set (issue 28): those who deposited there in the
-- last 90 days, read as often as a kiosk polls its set. They were found among all the
-- station's parcels of all time (the station and status index, then every row's heap
-- page for its courier and time): with two years of 6 deposits a day at a station, 3.0 ms
-- a poll, and growing with the station's age. The station's recent deposits, in one range
-- of this index and read from it alone, name them: 0.5 ms, the same at any age (an
-- EXPLAIN ANALYZE of both, 2026-11-29). Only deposited parcels are in it.
create index shipments_station_deposits on shipments (destination_station_id, deposited_at)
  include (deposited_by) where deposited_by is not null;
