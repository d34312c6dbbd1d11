import type { OperatorRole } from '@locker/shared';

/** What an operator may do. Every /ops/v1 route names the one it needs. */
export type Permission =
  | 'stations.read'
  | 'parcels.read'
  | 'alerts.read'
  | 'alerts.manage'
  | 'doors.service'
  | 'doors.open'
  | 'terminals.read'
  | 'terminals.manage'
  | 'couriers.read'
  | 'couriers.manage'
  | 'organizations.read'
  | 'organizations.manage'
  | 'operators.manage'
  | 'audit.read';

const EVERYTHING: Permission[] = [
  'stations.read',
  'parcels.read',
  'alerts.read',
  'alerts.manage',
  'doors.service',
  'doors.open',
  'terminals.read',
  'terminals.manage',
  'couriers.read',
  'couriers.manage',
  'organizations.read',
  'organizations.manage',
  'operators.manage',
  'audit.read',
];

/**
 * The roles (README "Operators and roles"): admin everything; operations everything but
 * operators and keys; support reads stations, parcels and alerts and acts on nothing;
 * technician the doors and terminals of the stations assigned to them (and their alerts).
 */
export const GRANTS: Record<OperatorRole, ReadonlySet<Permission>> = {
  admin: new Set(EVERYTHING),
  operations: new Set(
    EVERYTHING.filter((p) => p !== 'operators.manage' && p !== 'organizations.manage'),
  ),
  support: new Set(['stations.read', 'parcels.read', 'alerts.read']),
  technician: new Set([
    'stations.read',
    'alerts.read',
    'alerts.manage',
    'doors.service',
    'doors.open',
    'terminals.read',
    'terminals.manage',
  ]),
};

export function can(role: OperatorRole, permission: Permission): boolean {
  return GRANTS[role].has(permission);
}

/** Roles that can open a door: their sessions need a second factor (TOTP). */
export function needsSecondFactor(role: OperatorRole): boolean {
  return can(role, 'doors.open');
}

/** Whether the role sees stations by assignment only (technicians). */
export function scopedByStation(role: OperatorRole): boolean {
  return role === 'technician';
}
