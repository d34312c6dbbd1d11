import type { TFunction } from 'i18next';
import { en } from '../i18n/en';

type Status = keyof typeof en.shipmentStatus;

/** A parcel's status (or a history event) in words; an unknown one as the server names it. */
export function statusText(t: TFunction, status: string): string {
  return status in en.shipmentStatus
    ? t(`shipmentStatus.${status as Status}`)
    : status.replace(/_/g, ' ');
}
