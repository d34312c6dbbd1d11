import { ACCESSIBLE_HANDLE_MM, type Size } from '@locker/shared';
import type { Sql, TransactionSql } from '../db/connect';
import { inOneWrite, inOrder, type WriteDb } from '../db/transaction';
import { sizesFitting } from '../domain/sizes';

export interface FreeDoor {
  id: string;
  position: number;
}

/**
 * The smallest free door `size` fits, ties to the lowest position. Doors of unknown size
 * and doors out of service are never assigned. The caller holds the station's lock
 * (exclusive, or a deposit's with `lock`), so two assignments at one station never pick
 * the same door.
 */
export async function smallestFreeDoor(
  tx: TransactionSql,
  stationId: string,
  size: Size,
): Promise<FreeDoor | undefined> {
  const [door] = await tx<FreeDoor[]>`${smallestFreeDoorQuery(tx, stationId, size)}`;
  return door;
}

/**
 * The parcel a door is chosen for: the shipment whose own reservation it may use (none
 * for a booking not yet made), and whether it needs a door within reach.
 */
export interface DoorFor {
  shipmentId?: string | undefined;
  accessible: boolean;
  /**
   * A deposit's choice, beside other deposits at the station (`StationLockMode`'s `deposit`):
   * the door is locked for this transaction and a door another deposit holds, or filled
   * since this statement's snapshot (its `occupied` read again on its current row), is
   * passed over.
   */
  lock?: boolean;
}

/**
 * The query of `smallestFreeDoor`, to use inside a larger statement (a CTE). A door
 * another booking reserved (issue 27) is never given to this parcel; the parcel's own
 * reserved door comes first. Without `parcel` (a return's hold) every live reservation
 * is kept free.
 */
export function smallestFreeDoorQuery(
  tx: TransactionSql,
  stationId: string,
  size: Size,
  parcel?: DoorFor,
) {
  return tx`
    select d.id, d.position
      from doors d
      left join door_reservations r on r.door_id = d.id and r.until > now()
     where d.station_id = ${stationId}
       and not d.out_of_service
       and d.size in ${tx(sizesFitting(size))}
       and not exists (select 1 from door_occupancy o where o.door_id = d.id)
       and (r.door_id is null or r.shipment_id = ${parcel?.shipmentId ?? null}::uuid)
       ${parcel?.accessible ? withinReach(tx, 'd') : tx``}
       ${parcel?.lock ? tx`and not d.occupied` : tx``}
     order by r.door_id is null, array_position(array['S', 'M', 'L', 'XL'], d.size), d.position
     limit 1
     ${parcel?.lock ? tx`for no key update of d skip locked` : tx``}`;
}

/** `and` the door's handle lies within the reach range (EN 301 549: 380-1,220 mm). */
export function withinReach(db: Sql | TransactionSql, door: string) {
  return db`and ${db(door)}.handle_height_mm between ${ACCESSIBLE_HANDLE_MM.min} and ${ACCESSIBLE_HANDLE_MM.max}`;
}

/**
 * A door a kiosk chose on its own, if it is empty as far as the service knows: the parcel
 * is already inside, so neither its size nor its service mark is judged again. Locked for
 * the deposit, as `smallestFreeDoorQuery`'s `lock` does; a deposit holding it is waited
 * for, and a door it filled meanwhile is not empty.
 */
export function namedDoorQuery(tx: TransactionSql, stationId: string, position: number) {
  return tx`
    select d.id, d.position
      from doors d
     where d.station_id = ${stationId} and d.position = ${position}
       and not d.occupied
       and not exists (select 1 from door_occupancy o where o.door_id = d.id)
       for no key update of d`;
}

/**
 * Takes the station's lock for the rest of the transaction, exclusively (migration 025):
 * no deposit at the station runs meanwhile, then the station's row lock. THE LOCK ORDER
 * of every terminal path that changes a parcel or a door: the station first, then the
 * shipment, return, door and occupancy rows. Changing a door bumps the station's cabinet
 * version (a trigger), i.e. locks the station row; a path that locked a shipment first
 * and the station second would deadlock with one that did the reverse. `for no key
 * update` is the lock that trigger's update takes: it does not block merchants
 * registering shipments for the station (their foreign key takes key share).
 */
export async function lockStation(tx: TransactionSql, stationId: string): Promise<void> {
  await tx`select lock_station(${stationId})`;
}

/**
 * `exclusive`: `lockStation`'s. `deposit`: the deposits' mode of the station's lock
 * (migration 025's `lock_station_shared`): deposits run beside each other, each keeping
 * to the door it locked (`smallestFreeDoorQuery`'s `lock`), and never beside a path
 * holding `lockStation`. The station's row is locked by the cabinet version's bump, as the
 * door is filled (migration 028), so the deposits' mode is for a transaction sent in one
 * write (`inOneWrite`), whose commit follows its door's statement without a round trip to
 * this process: deposits beside each other choose their doors side by side and commit one
 * after another.
 */
export type StationLockMode = 'exclusive' | 'deposit';

/**
 * The station's lock (`lockStation`'s, or the deposits' mode with `mode: 'deposit'`),
 * then `statement`, sent in one write (issue 28): PostgreSQL runs the statement once the
 * lock is granted, with a snapshot taken then, so it sees everything committed while it
 * waited; the lock is held one round trip less than when the statement waited for the
 * lock's reply. `statement` is called after the lock's query is sent.
 *
 * THE CALLER ANNOUNCES THE CABINET: the transaction's new cabinet version is not notified
 * by its commit (migration 027) but by `cabinetChanged(…, { announce: true })` after it,
 * which every path through here calls once its transaction committed a change (deposits,
 * collections, returns; the sandbox and the offline replay sharing them).
 */
export async function underStationLock<T>(
  tx: TransactionSql,
  stationId: string,
  statement: () => PromiseLike<T>,
  mode: StationLockMode = 'exclusive',
): Promise<T> {
  const lock = mode === 'deposit' ? tx`lock_station_shared` : tx`lock_station`;
  // Sent now (`execute`: a postgres.js query is otherwise sent when first awaited), so it
  // is written before the statement, which PostgreSQL then runs after it.
  const locked = tx`
    select ${lock}(${stationId}), set_config('locker.cabinet_announce', 'after_commit', true)`.execute();
  // The lock's failure (a deadlock), not the 25P02 it makes of the statement after it.
  const [, result] = await inOrder<[unknown, T]>([locked, statement()]);
  return result;
}

/**
 * `statement` (already sent, in `tx`), and the cabinet version read by a statement sent
 * after it in the same transaction: the version its commit makes, without a round trip
 * after the commit (issue 28). A door the statement fills or holds bumps the version as
 * it runs (migration 028); the station's lock keeps any other bump out until the commit.
 * The statement's failure is thrown, not the 25P02 it makes of the read (`inOrder`).
 */
export async function withCabinetVersion<T>(
  tx: TransactionSql,
  stationId: string,
  statement: PromiseLike<T>,
): Promise<[T, string | null]> {
  const version = tx<{ cabinet_version: string }[]>`
    select cabinet_version::text from stations where id = ${stationId}`.execute();
  const [result, [station]] = await inOrder<[T, { cabinet_version: string }[]]>([
    statement,
    version,
  ]);
  return [result, station?.cabinet_version ?? null];
}

/**
 * `statement` under the station's lock (`underStationLock`, in `mode`): in the caller's
 * transaction (`tx`; the version is left to be read after its commit), or in a
 * transaction of its own sent in one write with the cabinet version its commit makes
 * (`sql`: BEGIN, the lock, the statement, the version, COMMIT). `statement` sends its
 * query as it is called (`execute`).
 */
export async function lockedWrite<T>(
  db: WriteDb,
  stationId: string,
  statement: (tx: TransactionSql) => PromiseLike<T>,
  mode: StationLockMode = 'exclusive',
): Promise<[T, string | null]> {
  const locked = (tx: TransactionSql) => underStationLock(tx, stationId, () => statement(tx), mode);
  if ('tx' in db) return [await locked(db.tx), null];
  return inOneWrite(db.sql, (tx) => withCabinetVersion(tx, stationId, locked(tx)));
}
