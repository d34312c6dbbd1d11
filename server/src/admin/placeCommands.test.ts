import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../../test/harness';
import { runAdmin } from './run';

const stack = useTestServer();

/** The CLI in-process, with the arguments an operator would type. */
async function admin(...args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runAdmin(args, {
    out: (t) => (stdout += t),
    err: (t) => (stderr += t),
    env: { ...process.env, DATABASE_URL: stack.databaseUrl },
  });
  return { code, stdout, stderr, json: () => JSON.parse(stdout) as Record<string, unknown> };
}

describe('pnpm admin station set-place, set-booking, door set-height', () => {
  it('sets a station’s place, keeping what is not given', async () => {
    const station = await stack.station('1:S');
    const first = await admin(
      'station',
      'set-place',
      '--station',
      station.code,
      '--address',
      'Rruga Agim Ramadani 15, Prishtinë',
      '--coordinates',
      '42.6629,21.1655',
      '--hours',
      '24/7',
      '--step-free',
      'yes',
    );
    expect(first.code, first.stderr).toBe(0);
    const again = await admin(
      'station',
      'set-place',
      '--station',
      station.code,
      '--step-free',
      'unknown',
    );
    expect(again.json()).toEqual({
      code: station.code,
      address: 'Rruga Agim Ramadani 15, Prishtinë',
      latitude: 42.6629,
      longitude: 21.1655,
      openingHours: [
        { days: ['mo', 'tu', 'we', 'th', 'fr', 'sa', 'su'], opens: '00:00', closes: '24:00' },
      ],
      stepFree: null,
    });
  });

  it.each([
    [['--coordinates', '95,21'], /--coordinates must be latitude,longitude/],
    [['--hours', 'mo-fr 9-5'], /--hours: .*HH:MM/],
    [['--step-free', 'maybe'], /--step-free must be one of yes, no, unknown/],
    [[], /give at least one of/],
  ])('refuses %j with one sentence, changing nothing', async (args, why) => {
    const station = await stack.station('1:S');
    const answer = await admin('station', 'set-place', '--station', station.code, ...args);
    expect(answer.code).toBe(1);
    expect(answer.stdout).toBe('');
    expect(answer.stderr).toMatch(why);
    const [row] =
      await stack.sql`select latitude, opening_hours, step_free from stations where id = ${station.id}`;
    expect(row).toEqual({ latitude: null, opening_hours: null, step_free: null });
  });

  it('sets reservation and extension hours, and door handle heights with whether each is within reach', async () => {
    const station = await stack.station('1:S,2:M');
    const booking = await admin(
      'station',
      'set-booking',
      '--station',
      station.code,
      '--reservation-hours',
      '48',
      '--extension-hours',
      'none',
    );
    expect(booking.json()).toEqual({
      code: station.code,
      reservationHours: 48,
      storageExtensionHours: null,
    });
    const heights = await admin(
      'door',
      'set-height',
      '--station',
      station.code,
      '--heights',
      '1:1650,2:900',
    );
    expect(heights.json()).toEqual({
      station: station.code,
      doors: [
        { position: 1, handleHeightMm: 1650, withinReach: false },
        { position: 2, handleHeightMm: 900, withinReach: true },
      ],
    });
    const missing = await admin(
      'door',
      'set-height',
      '--station',
      station.code,
      '--heights',
      '1:800,9:800',
    );
    expect(missing.stderr).toMatch(/door 9 of station .* not found/);
    const [door] =
      await stack.sql`select handle_height_mm from doors where station_id = ${station.id} and position = 1`;
    expect(door!.handle_height_mm).toBe(1650);
  });

  it('takes door heights from the kiosk’s cabinet file', async () => {
    const station = await stack.station('1:S,2:M,3:L');
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'cabinet-')), 'cabinet.json');
    writeFileSync(file, JSON.stringify({ boards: [0], handleHeightsMm: { 2: 1000, 3: 300 } }));
    const answer = await admin('door', 'set-height', '--station', station.code, '--cabinet', file);
    expect(answer.json()).toEqual({
      station: station.code,
      doors: [
        { position: 2, handleHeightMm: 1000, withinReach: true },
        { position: 3, handleHeightMm: 300, withinReach: false },
      ],
    });
    const neither = await admin('door', 'set-height', '--station', station.code);
    expect(neither.stderr).toMatch(/give --heights or --cabinet/);
  });
});
