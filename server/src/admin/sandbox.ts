import { randomBytes } from 'node:crypto';
import { createOrganization, createStation } from './commands';
import type { Sql } from '../db/connect';

/** Doors of a simulated station: every size, a few of each. */
const SANDBOX_DOORS = '1:S,2:S,3:S,4:S,5:M,6:M,7:M,8:L,9:L,10:XL';

/**
 * An organization for integration testing: its API key works as any other, but it ships
 * only to its own simulated station, which no terminal can join (a trigger refuses it),
 * and its recipients are never texted.
 */
export async function createSandboxOrganization(sql: Sql, name: string) {
  const org = await createOrganization(sql, name);
  await sql`update organizations set sandbox = true where id = ${org.id}`;
  const suffix = randomBytes(3).toString('hex').toUpperCase();
  const station = await createStation(sql, {
    code: `SBX-${suffix}`,
    name: `Sandbox ${suffix}`,
    cabinetSn: `SANDBOX-${suffix}`,
    doors: SANDBOX_DOORS,
  });
  await sql`update stations set sandbox_organization_id = ${org.id} where id = ${station.id}`;
  return {
    ...org,
    sandbox: true as const,
    stations: [{ id: station.id, code: station.code, name: station.name }],
  };
}
