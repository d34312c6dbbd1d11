-- Overflow (issue 27): a courier who finds a station full takes the parcel to the nearest
-- station with room, and its booking follows it. The shipment's status does not change
-- (still `booked`), so the status trigger records nothing: the reroute writes its own
-- tracking event, `booked` at the new station, naming the station it came from.
alter table tracking_events
  add column rerouted_from_station_id uuid references stations (id);
