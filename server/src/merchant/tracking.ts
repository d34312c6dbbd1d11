import type { ShipmentStatus, Tracking } from '@locker/shared';
import type { Middleware } from 'koa';
import type { Services } from '../services';
import { problem } from '../http/problem';

interface EventRow {
  status: ShipmentStatus;
  occurred_at: Date;
  reported_at: Date | null;
  station_code: string | null;
  rerouted_from_station_code: string | null;
}

/** GET /track/{trackingNumber}: status and history, only of the organization's parcels. */
export function track({ sql }: Services): Middleware {
  return async (ctx) => {
    const { trackingNumber } = ctx.params as { trackingNumber: string };
    const [shipment] = await sql<{ id: string; tracking_number: string; status: ShipmentStatus }[]>`
      select id, tracking_number, status from shipments
       where tracking_number = ${trackingNumber} and organization_id = ${ctx.state.organization.id}`;
    if (!shipment) throw problem.notFound('No such parcel.');
    const events = await sql<EventRow[]>`
      select e.status, e.occurred_at, e.reported_at, s.code as station_code,
             f.code as rerouted_from_station_code
        from tracking_events e left join stations s on s.id = e.station_id
        left join stations f on f.id = e.rerouted_from_station_id
       where e.shipment_id = ${shipment.id}
       -- The order things happened to the parcel; its times never run backwards (a time
       -- reported before the previous event is replaced, and kept as reported_at).
       order by e.id`;
    const body: Tracking = {
      tracking_number: shipment.tracking_number,
      status: shipment.status,
      events: events.map((e) => ({
        status: e.status,
        occurred_at: e.occurred_at.toISOString(),
        ...(e.reported_at ? { reported_at: e.reported_at.toISOString() } : {}),
        ...(e.station_code ? { station_code: e.station_code } : {}),
        // A reroute (issue 27): booked to `station_code` now, from this station.
        ...(e.rerouted_from_station_code
          ? { rerouted_from_station_code: e.rerouted_from_station_code }
          : {}),
      })),
    };
    ctx.body = body;
  };
}
