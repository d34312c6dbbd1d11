import type { Size } from '@locker/shared';
import type { TransactionSql } from '../db/connect';
import { sizesFitting } from '../domain/sizes';

export interface FreeDoor {
  id: string;
  position: number;
}

/**
 * The smallest free door `size` fits, ties to the lowest position. Doors of unknown size
 * and doors out of service are never assigned. The caller holds the station row lock,
 * so two assignments at one station never pick the same door.
 */
export async function smallestFreeDoor(
  tx: TransactionSql,
  stationId: string,
  size: Size,
): Promise<FreeDoor | undefined> {
  const [door] = await tx<FreeDoor[]>`${smallestFreeDoorQuery(tx, stationId, size)}`;
  return door;
}

/** The query of `smallestFreeDoor`, to use inside a larger statement (a CTE). */
export function smallestFreeDoorQuery(tx: TransactionSql, stationId: string, size: Size) {
  return tx`
    select d.id, d.position
      from doors d
     where d.station_id = ${stationId}
       and not d.out_of_service
       and d.size in ${tx(sizesFitting(size))}
       and not exists (select 1 from door_occupancy o where o.door_id = d.id)
     order by array_position(array['S', 'M', 'L', 'XL'], d.size), d.position
     limit 1`;
}

/**
 * A door a kiosk chose on its own, if it is empty as far as the service knows: the parcel
 * is already inside, so neither its size nor its service mark is judged again.
 */
export function namedDoorQuery(tx: TransactionSql, stationId: string, position: number) {
  return tx`
    select d.id, d.position
      from doors d
     where d.station_id = ${stationId} and d.position = ${position}
       and not exists (select 1 from door_occupancy o where o.door_id = d.id)`;
}

/**
 * Takes the station's row lock for the rest of the transaction. THE LOCK ORDER of every
 * terminal path that changes a parcel or a door: the station row first, then the
 * shipment, return, door and occupancy rows. Changing a door's contents bumps the
 * station's cabinet version (a trigger), i.e. locks the station row; a path that locked
 * a shipment first and the station second would deadlock with one that did the reverse.
 * `for no key update` is the lock that trigger's update takes: it does not block
 * merchants registering shipments for the station (their foreign key takes key share).
 */
export async function lockStation(tx: TransactionSql, stationId: string): Promise<void> {
  await tx`select 1 from stations where id = ${stationId} for no key update`;
}
