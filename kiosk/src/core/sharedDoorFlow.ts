import type { DepositResult, SharedDoorCheck } from '../bridge/api';
import type { DoorFlows } from './doorFlows';
import { refusalOf } from './refusal';
import type { ServiceLink } from './serviceLink';

// Issue 27, "several parcels, one door, one code" (docs/terminal-extensions.md, "Shared
// doors"). The courier scanned a parcel after putting one in a door: if the service says
// it may join that door (the same person, it fits), the screen asks "the same door?"; yes
// opens that door again through the deposit's own door session. Only online: offline,
// every parcel gets a door of its own, as before.

/** What these steps need of the service link: its client, served in turn. */
type Link = Pick<ServiceLink, 'client' | 'serve'>;

export async function checkSharedDoor(
  link: Link,
  reachable: boolean,
  ask: { courierNo: string; trackingNumber: string; door: number },
): Promise<SharedDoorCheck> {
  if (!reachable) return { kind: 'not_shareable' };
  const answer = await link.serve(() =>
    link.client.checkSharedDeposit(ask.courierNo, ask.trackingNumber, ask.door),
  );
  if (!answer.ok || !answer.value.shareable) return { kind: 'not_shareable' };
  return {
    kind: 'shareable',
    door: answer.value.door,
    parcelsInDoor: answer.value.parcelsInDoor,
  };
}

/**
 * The join, then the door: the same steps as a deposit (doorFlows.ts `deposit`), the
 * service naming the door it joined (told to `recorded` before the door opens). A door
 * shut empty is reported as for any deposit.
 */
export function depositShared(
  link: Link,
  flows: DoorFlows,
  parcel: { courierNo: string; trackingNumber: string; door: number },
  recorded: (door: number) => void,
): Promise<DepositResult> {
  const { courierNo, trackingNumber, door } = parcel;
  return flows.deposit({ courierNo, trackingNumber }, async () => {
    const answer = await link.serve(() =>
      link.client.depositShared(courierNo, trackingNumber, door),
    );
    if (!answer.ok) return refusalOf(answer);
    recorded(answer.value.door);
    return answer.value.door;
  });
}

/** The door's other parcels for the pickup's code; none when the service does not say. */
export async function sharedDoorOthers(
  link: Link,
  shipmentId: string,
): Promise<{ shipmentId: string; trackingNumber: string }[]> {
  const answer = await link.serve(() => link.client.doorParcels(shipmentId));
  if (!answer.ok) return [];
  return answer.value.parcels.filter((p) => p.shipmentId !== shipmentId);
}
