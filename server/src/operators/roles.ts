import { ROLE_PERMISSIONS, type OperatorRole, type OpsPermission } from '@locker/shared';

/** What an operator may do. Every /ops/v1 route names the one it needs. */
export type Permission = OpsPermission;

/**
 * The roles' grants, from shared/ (the console reads the same table to leave off its
 * screens what a role may not do): admin everything; operations everything but operators
 * and keys; support reads stations, parcels and alerts and acts on nothing; technician
 * the doors and terminals of the stations assigned to them (and their alerts).
 */
export const GRANTS: Record<OperatorRole, ReadonlySet<Permission>> = {
  admin: new Set(ROLE_PERMISSIONS.admin),
  operations: new Set(ROLE_PERMISSIONS.operations),
  support: new Set(ROLE_PERMISSIONS.support),
  technician: new Set(ROLE_PERMISSIONS.technician),
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
