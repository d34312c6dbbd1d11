import type { Alert } from '@locker/shared';
import type { TFunction } from 'i18next';
import { en } from '../i18n/en';

export const SEVERITY_RANK = { critical: 0, warning: 1, info: 2 } as const;

type Kind = keyof typeof en.alertKinds;
export const KNOWN_KINDS = Object.keys(en.alertKinds) as Kind[];

/** An alert's kind in words; a kind this console does not know yet, as the server names it. */
export function kindText(t: TFunction, kind: string): string {
  return kind in en.alertKinds ? t(`alertKinds.${kind as Kind}`) : kind.replace(/_/g, ' ');
}

/** Inbox order: most severe first, then oldest. History: newest first. */
export function inboxOrder(a: Alert, b: Alert): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    a.created_at.localeCompare(b.created_at) ||
    Number(a.id) - Number(b.id)
  );
}
export function historyOrder(a: Alert, b: Alert): number {
  return b.created_at.localeCompare(a.created_at) || Number(b.id) - Number(a.id);
}
