import { admin, client, type TestStack } from '@locker/server/testing';

/** A phone whose last digits a support agent types to find the parcel. */
export const DRITA_PHONE = '+38344123456';

/**
 * A small network as an operator finds it on a bad night: a busy station with parcels
 * (two overdue, one expired), a door out of service and a door fault; a station whose
 * terminal went silent (a critical alert); a quiet one; couriers and a shop.
 */
export async function networkScene(stack: TestStack) {
  const org = await admin.createOrganization(stack.sql, 'Shop Tirana');
  const doors = Array.from(
    { length: 24 },
    (_, i) => `${i + 1}:${['S', 'S', 'M', 'M', 'L', 'XL'][i % 6]}`,
  ).join(',');
  const busy = await admin.createStation(stack.sql, {
    code: 'PRN-022',
    name: 'Prishtina Bregu i Diellit',
    cabinetSn: 'KR-CU16-0022',
    doors,
    supportPhone: '+383 38 200 200',
  });
  const silent = await admin.createStation(stack.sql, {
    code: 'PRZ-007',
    name: 'Prizren Shadërvan',
    doors: '1:S,2:M,3:L,4:XL',
  });
  const quiet = await admin.createStation(stack.sql, {
    code: 'TIR-101',
    name: 'Tirana Blloku',
    doors: '1:S,2:S,3:M,4:L',
  });
  const busyTerminal = await admin.createTerminal(stack.sql, busy.code);
  const silentTerminal = await admin.createTerminal(stack.sql, silent.code);
  await admin.createTerminal(stack.sql, quiet.code);
  const courier = await admin.createCourier(stack.sql, '1001', 'Arben Krasniqi');
  await admin.createCourier(stack.sql, '1002', 'Besa Hoxha');
  const terminal = client(stack.url, busyTerminal.token);
  await terminal.post('/terminal/v1/heartbeat', { appVersion: '2.4.1' });
  await client(stack.url, silentTerminal.token).post('/terminal/v1/heartbeat', {
    appVersion: '2.3.0',
  });

  const deposit = async (name: string, phone?: string, size: 'S' | 'M' | 'L' = 'S') => {
    const shipment = await stack.shipment(org.id, busy.id, {
      name,
      size,
      ...(phone ? { phone } : {}),
    });
    const answer = await terminal.post('/terminal/v1/deposit', {
      courierNo: courier.number,
      trackingNumber: shipment.tracking_number,
    });
    if (answer.status !== 200) throw new Error(`deposit answered ${answer.status}: ${answer.text}`);
    return { shipment, door: answer.body.door as number };
  };
  const drita = await deposit('Drita Gashi', DRITA_PHONE);
  const late = await deposit('Luan Berisha', undefined, 'M');
  const later = await deposit('Arta Kelmendi', undefined, 'L');
  await deposit('Faton Shala');
  await deposit('Vjosa Morina', undefined, 'M');
  // Two parcels past their free storage (72 h), one of them past its expiry (168 h).
  await stack.sql`update shipments set deposited_at = now() - interval '100 hours' where id = ${late.shipment.id}`;
  await stack.sql`update door_occupancy set since = now() - interval '100 hours' where shipment_id = ${late.shipment.id}`;
  await stack.sql`update shipments set deposited_at = now() - interval '200 hours' where id = ${later.shipment.id}`;
  await stack.sql`update door_occupancy set since = now() - interval '200 hours' where shipment_id = ${later.shipment.id}`;
  await stack.sql`update doors set out_of_service = true, out_of_service_reason = 'hinge bent, waiting for a part',
                    out_of_service_since = now() - interval '2 days', out_of_service_by = 'besa@ops.example'
                   where station_id = ${busy.id} and position = 9`;
  // A door that would not open, reported by the kiosk: out of service, and an alert.
  const fault = await terminal.post('/terminal/v1/door/fault', { position: 14 });
  if (fault.status !== 200) throw new Error(`door fault answered ${fault.status}: ${fault.text}`);
  // The silent station's terminal: marked offline, with its critical alert.
  await stack.sql`update terminals set status = 'offline', last_heartbeat_at = now() - interval '20 minutes' where id = ${silentTerminal.id}`;
  await stack.sql`insert into alerts (kind, terminal_id, station_id, message)
                  values ('terminal_offline', ${silentTerminal.id}, ${silent.id}, 'No heartbeat for 20 minutes')`;
  return {
    org,
    busy,
    silent,
    quiet,
    busyTerminal,
    silentTerminal,
    courier,
    drita,
    late,
    later,
    terminal,
  };
}
