import { OverflowStationSchema, StationWithRoomSchema, type OverflowStation } from '@locker/shared';
import { z } from 'zod';
import type { AlternativesResult, OverflowChoice, RerouteResult } from '../bridge/overflow';
import type { ServiceLink } from './serviceLink';
import { refusalOf } from './refusal';

// Overflow (issue 27): asking the service where a parcel this full locker cannot take
// could go, and sending it there. Online only: working on its own the kiosk cannot move
// a booking, and the screen says the locker is full, as it did before.

const choice = (s: Pick<OverflowStation, 'code' | 'name' | 'address' | 'distance_m'>) => ({
  code: s.code,
  name: s.name,
  address: s.address,
  distanceM: s.distance_m,
});

/** The stations a `station_full` problem still names (its extension member), if readable. */
const StillWithRoom = z.array(
  StationWithRoomSchema.pick({ code: true, name: true, address: true, distance_m: true }),
);

export async function depositAlternatives(
  link: ServiceLink,
  courierNo: string,
  trackingNumber: string,
): Promise<AlternativesResult> {
  const answer = await link.serve(() => link.client.depositAlternatives(courierNo, trackingNumber));
  if (!answer.ok) return refusalOf(answer);
  return { kind: 'alternatives', stations: answer.value.stations.map(choice) };
}

export async function rerouteDeposit(
  link: ServiceLink,
  courierNo: string,
  trackingNumber: string,
  stationCode: string,
): Promise<RerouteResult> {
  const answer = await link.serve(() =>
    link.client.rerouteDeposit(courierNo, trackingNumber, stationCode),
  );
  if (answer.ok) {
    const station: OverflowChoice = choice(OverflowStationSchema.parse(answer.value.station));
    return { kind: 'rerouted', station, recipientNotified: answer.value.recipient_notified };
  }
  if (answer.code === 'station_full') {
    const others = StillWithRoom.safeParse(answer.problem?.nearest_stations_with_room);
    return { kind: 'station_full', stations: others.success ? others.data.map(choice) : [] };
  }
  return refusalOf(answer);
}
