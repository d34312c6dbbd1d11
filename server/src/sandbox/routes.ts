import { SandboxAdvanceRequestSchema } from '@locker/shared';
import type { Middleware } from 'koa';
import { isUuid } from '../domain/ids';
import type { Services } from '../services';
import { readJson } from '../http/body';
import { problem } from '../http/problem';
import { validate } from '../http/validate';
import { presentShipment, shipmentView } from '../shipments/view';
import { advance, type SandboxParcel } from './advance';

interface ParcelRow {
  id: string;
  tracking_number: string;
  status: string;
  station_id: string;
  code: string;
  name: string;
  cabinet_version: string;
  support_phone: string;
  idle_timeout_seconds: number;
  free_storage_hours: number;
  max_storage_hours: number;
  free_storage_reminder_hours: number | null;
  expiry_reminder_hours: number | null;
}

/** GET /sandbox/stations: the simulated stations a sandbox organization ships to. */
export function sandboxStations({ sql }: Services): Middleware {
  return async (ctx) => {
    const rows = await sql<{ id: string; code: string; name: string; cabinet_sn: string }[]>`
      select id, code, name, cabinet_sn from stations
       where sandbox_organization_id = ${ctx.state.organization.id} order by code`;
    ctx.body = { data: rows };
  };
}

/**
 * POST /sandbox/shipments/{id}/advance: drives one of a sandbox organization's shipments a
 * step, as a kiosk would. Any other shipment, and any shipment of a live organization, is
 * 404: live parcels can never be moved from here.
 */
export function advanceSandboxShipment(services: Services): Middleware {
  return async (ctx) => {
    const { id } = ctx.params as { id?: string };
    const [row] =
      id && isUuid(id)
        ? await services.sql<ParcelRow[]>`
            select sh.id, sh.tracking_number, sh.status, s.id as station_id, s.code, s.name,
                   s.cabinet_version, s.support_phone, s.idle_timeout_seconds,
                   s.free_storage_hours, s.max_storage_hours,
                   s.free_storage_reminder_hours, s.expiry_reminder_hours
              from shipments sh join stations s on s.id = sh.destination_station_id
             where sh.id = ${id} and sh.organization_id = ${ctx.state.organization.id}
               and s.sandbox_organization_id = ${ctx.state.organization.id}`
        : [];
    if (!row) throw problem.notFound('No such sandbox shipment.');
    const { action } = validate(
      SandboxAdvanceRequestSchema,
      await readJson(ctx),
      'validation_failed',
    );
    const parcel: SandboxParcel = {
      id: row.id,
      tracking_number: row.tracking_number,
      status: row.status,
      station: {
        id: row.station_id,
        code: row.code,
        name: row.name,
        cabinetVersion: String(row.cabinet_version),
        supportPhone: row.support_phone,
        idleTimeoutSeconds: row.idle_timeout_seconds,
        freeStorageHours: row.free_storage_hours,
        maxStorageHours: row.max_storage_hours,
        freeReminderHours: row.free_storage_reminder_hours,
        expiryReminderHours: row.expiry_reminder_hours,
      },
    };
    await advance(services, parcel, action);
    ctx.body = presentShipment((await shipmentView(services.sql, row.id))!);
  };
}
