-- A delivery left uncollected for max_storage_hours after its deposit has expired: the
-- merchant's courier may take it out and send it back (the "courier/returns" extension).
-- Until then the recipient's code keeps working, late collection included.
alter table stations
  add column max_storage_hours integer not null default 168 check (max_storage_hours > 0),
  add constraint stations_max_storage_covers_free check (max_storage_hours >= free_storage_hours);

-- Finds a station's expired deliveries without reading every shipment it ever had.
create index shipments_awaiting_since
  on shipments (destination_station_id, deposited_at) where status = 'ready_for_pickup';
