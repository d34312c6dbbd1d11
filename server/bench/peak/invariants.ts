import type { Sql } from '../../src/db/connect';

/** A deposit the server answered 200. */
export interface DepositAnswer {
  trackingNumber: string;
  door: number;
}

export interface StoredParcel {
  tracking_number: string;
  status: string;
  slot_no: number | null;
  /** The position of the door whose occupancy row names this parcel, if any. */
  occupied_position: number | null;
}

/** `station:door` of every door that more than one parcel awaiting pickup names. */
export function doublyOccupied(parcels: { station: string; door: number | null }[]): string[] {
  const seen = new Map<string, number>();
  for (const p of parcels) {
    if (p.door === null) continue;
    const key = `${p.station}:${p.door}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  return [...seen].filter(([, n]) => n > 1).map(([key]) => key);
}

/** Deposits answered 200 whose parcel is not, as stored, in the door the answer named. */
export function depositsNotInTheirDoor(
  answers: DepositAnswer[],
  stored: Map<string, StoredParcel>,
): string[] {
  return answers
    .filter((a) => {
      const p = stored.get(a.trackingNumber);
      return (
        !p ||
        p.status !== 'ready_for_pickup' ||
        p.slot_no !== a.door ||
        p.occupied_position !== a.door
      );
    })
    .map((a) => a.trackingNumber);
}

/** Deposited parcels whose code SMS the sink received not at all, or more than once. */
export function codeSmsNotOnce(
  deposited: string[],
  receivedFor: string[],
): { missing: string[]; repeated: string[] } {
  const counts = new Map<string, number>();
  for (const tn of receivedFor) counts.set(tn, (counts.get(tn) ?? 0) + 1);
  return {
    missing: deposited.filter((tn) => !counts.get(tn)),
    repeated: deposited.filter((tn) => (counts.get(tn) ?? 0) > 1),
  };
}

export interface InvariantReport {
  'doors holding two parcels': number;
  '200 deposits checked': number;
  '200 deposits not in their door': number;
  'code SMS missing': number;
  'code SMS sent more than once': number;
}

/** Reads the database after a run and judges the three invariants the issue names. */
export async function checkInvariants(
  sql: Sql,
  deposits: DepositAnswer[],
  smsTrackingNumbers: string[],
): Promise<InvariantReport> {
  // Both occupancy and the shipments' slot numbers: a door named by two parcels in either.
  const occupiedDoors = await sql<{ station: string; door: number }[]>`
    select o.station_id::text as station, d.position as door
      from door_occupancy o join doors d on d.id = o.door_id`;
  const awaiting = await sql<{ station: string; door: number }[]>`
    select destination_station_id::text as station, slot_no as door from shipments
     where status = 'ready_for_pickup'`;
  const twice = new Set([...doublyOccupied(occupiedDoors), ...doublyOccupied(awaiting)]);

  const rows = await sql<StoredParcel[]>`
    select sh.tracking_number, sh.status, sh.slot_no, d.position as occupied_position
      from shipments sh
      left join door_occupancy o on o.shipment_id = sh.id
      left join doors d on d.id = o.door_id
     where sh.tracking_number = any(${deposits.map((d) => d.trackingNumber)}::text[])`;
  const stored = new Map(rows.map((r) => [r.tracking_number, r]));
  const misplaced = depositsNotInTheirDoor(deposits, stored);
  const sms = codeSmsNotOnce(
    deposits.map((d) => d.trackingNumber),
    smsTrackingNumbers,
  );
  return {
    'doors holding two parcels': twice.size,
    '200 deposits checked': deposits.length,
    '200 deposits not in their door': misplaced.length,
    'code SMS missing': sms.missing.length,
    'code SMS sent more than once': sms.repeated.length,
  };
}
