import type { Sql, TransactionSql } from '../db/connect';
import { transaction } from '../db/transaction';
import { newTrackingNumber } from '../domain/trackingNumber';
import type { NewShipment } from '../shipments/register';
import { shipmentColumns, type ShipmentView } from '../shipments/view';
import { smallestFreeDoorQuery } from '../terminal/doorAssignment';
import { nearestStations, present } from './finder';
import { StationFullProblem } from './stationFull';

/** How many stations with room a `station_full` names. */
const ALTERNATIVES = 3;

interface LockedStation {
  id: string;
  latitude: number | null;
  longitude: number | null;
}

/**
 * Registers a shipment that holds a door from now until its deposit, its cancel or the
 * station's `reservation_hours`, whichever comes first (issue 27). In the caller's
 * transaction, or its own: the station row lock first (the lock order of every path that
 * gives out doors, terminal/doorAssignment.ts), so a door is promised once across every
 * server instance, and a deposit or return hold, which take the same lock and skip doors
 * reserved for others, never takes it meanwhile. Answers undefined when the station does
 * not exist (for this organization); throws `StationFullProblem` when no door fits.
 */
export async function registerReservingShipment(
  db: Sql | TransactionSql,
  organizationId: string,
  input: NewShipment & { accessibleDoor: boolean },
): Promise<ShipmentView | undefined> {
  if ('begin' in db) return transaction(db, (tx) => reserve(tx, organizationId, input));
  return reserve(db, organizationId, input);
}

async function reserve(
  tx: TransactionSql,
  organizationId: string,
  input: NewShipment & { accessibleDoor: boolean },
): Promise<ShipmentView | undefined> {
  const [station] = await tx<LockedStation[]>`
    select s.id, s.latitude, s.longitude, lock_station(s.id)
      from stations s, organizations o
     where s.id = ${input.destinationStationId} and o.id = ${organizationId}
       and s.sandbox_organization_id is not distinct from (case when o.sandbox then o.id end)`;
  if (!station) return undefined;
  const door = smallestFreeDoorQuery(tx, station.id, input.parcelSize, {
    accessible: input.accessibleDoor,
  });
  for (;;) {
    // After the lock, so this statement's snapshot sees every reservation and deposit
    // made before it. A lapsed reservation of the chosen door is overwritten.
    const [row] = await tx<(ShipmentView & { found: boolean; held: boolean })[]>`
      with door as (${door}),
      sh as (
        insert into shipments (
          organization_id, tracking_number, destination_station_id, parcel_size,
          recipient_name, recipient_phone, recipient_language, merchant_order_reference,
          accessible_door, reserved_until)
        select ${organizationId}, ${newTrackingNumber()}, s.id, ${input.parcelSize},
               ${input.recipientName}, ${input.recipientPhone}, ${input.recipientLanguage},
               ${input.merchantOrderReference ?? null}, ${input.accessibleDoor},
               now() + make_interval(hours => s.reservation_hours)
          from stations s, door
         where s.id = ${station.id}
        on conflict (tracking_number) do nothing
        returning *),
      held as (
        insert into door_reservations (door_id, station_id, shipment_id, until)
        select door.id, sh.destination_station_id, sh.id, sh.reserved_until from door, sh
        on conflict (door_id) do update
          set station_id = excluded.station_id, shipment_id = excluded.shipment_id,
              until = excluded.until, created_at = now()
          where door_reservations.until <= now()
        returning door_id)
      select exists (select 1 from door) as found, exists (select 1 from held) as held,
             ${shipmentColumns(tx)}
        from (select) one
        left join (sh join stations s on s.id = sh.destination_station_id) on true`;
    if (!row?.found) {
      throw new StationFullProblem(
        input.parcelSize,
        input.accessibleDoor,
        await alternatives(tx, organizationId, station, input),
      );
    }
    // A tracking number already taken (rarely: 9 * 10^11 numbers): drawn again.
    if (!row.id) continue;
    // The door query skips live reservations: an unheld door here is a broken invariant.
    if (!row.held) throw new Error('reservation found a free door but could not hold it');
    return withoutFlags(row);
  }
}

/** The shipment view of the booking statement's row, without its two flags. */
function withoutFlags(row: ShipmentView & { found: boolean; held: boolean }): ShipmentView {
  const view: Partial<typeof row> = { ...row };
  delete view.found;
  delete view.held;
  return view as ShipmentView;
}

/** The organization's nearest stations with a door free for this parcel now. */
async function alternatives(
  tx: TransactionSql,
  organizationId: string,
  station: LockedStation,
  input: NewShipment & { accessibleDoor: boolean },
) {
  if (station.latitude === null || station.longitude === null) return [];
  const found = await nearestStations(
    tx,
    { latitude: station.latitude, longitude: station.longitude },
    {
      organizationId,
      asOf: new Date(),
      size: input.parcelSize,
      accessible: input.accessibleDoor,
      limit: ALTERNATIVES,
      except: station.id,
    },
  );
  return found.map((f) => {
    const { id, code, name, address, distance_m, free_doors, accessible_free_doors } = present(f);
    return { id, code, name, address, distance_m, free_doors, accessible_free_doors };
  });
}

/**
 * A deposit undone (the door would not open, or was shut empty) used up the booking's
 * reservation: while it has not lapsed, the parcel holds a door again, the smallest free
 * one it fits. With none free it is marked lapsed now, so the shipment never says a door
 * is held that is not. The caller holds the station lock.
 */
export async function renewReservation(tx: TransactionSql, shipmentId: string): Promise<void> {
  const [parcel] = await tx<
    {
      destination_station_id: string;
      parcel_size: NewShipment['parcelSize'];
      accessible_door: boolean;
    }[]
  >`
    select destination_station_id, parcel_size, accessible_door from shipments
     where id = ${shipmentId} and status = 'booked' and reserved_until > now()`;
  if (!parcel) return;
  const door = smallestFreeDoorQuery(tx, parcel.destination_station_id, parcel.parcel_size, {
    shipmentId,
    accessible: parcel.accessible_door,
  });
  await tx`
    with door as (${door}),
    held as (
      insert into door_reservations (door_id, station_id, shipment_id, until)
      select door.id, sh.destination_station_id, sh.id, sh.reserved_until
        from door, shipments sh where sh.id = ${shipmentId}
      on conflict (door_id) do update
        set station_id = excluded.station_id, shipment_id = excluded.shipment_id,
            until = excluded.until, created_at = now()
        where door_reservations.until <= now()
      returning door_id)
    update shipments set reserved_until = now()
     where id = ${shipmentId} and not exists (select 1 from held)`;
}
