import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { TerminalClient } from './client';
import { openKioskDatabase } from './database';
import { OfflinePickups } from './offlinePickup';

const S = '0b0e9f4e-6a51-4c8e-9a53-1f4f5d6a7b01';
const HOUR = 60 * 60_000;

/** The kept pickup set, fed by hand: `set` is what the service answers at the next fetch. */
function pickupsAt(clock: { now: number }) {
  let pickups: { shipmentId: string; door: number; collectUntil: string; verifier: string }[] = [];
  let n = 0;
  const client = {
    offlinePickups: () =>
      Promise.resolve({
        ok: true,
        value: { set: { version: String(++n), pickups }, etag: `"${n}"` },
        correlationId: 'c',
      }),
  } as unknown as TerminalClient;
  const offline = new OfflinePickups({
    db: openKioskDatabase(mkdtempSync(path.join(tmpdir(), 'pickups-'))),
    client,
    log: pino({ level: 'silent' }),
    openDoor: () => Promise.reject(new Error('no door here')),
    currentSessionId: () => null,
    onState: () => () => {},
    now: () => clock.now,
  });
  const holds = (has: boolean) => {
    pickups = has
      ? [
          {
            shipmentId: S,
            door: 1,
            collectUntil: new Date(clock.now + 48 * HOUR).toISOString(),
            verifier: 'v1$not-parsed',
          },
        ]
      : [];
  };
  return { offline, holds };
}

describe('a barred parcel of the offline pickup set', () => {
  it('stays barred while the set has it, and an hour after it left; its bar is then forgotten', async () => {
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') };
    const { offline, holds } = pickupsAt(clock);
    holds(true);
    await offline.sync();
    expect(offline.ready).toBe(true);
    offline.bar(1);
    expect(offline.ready).toBe(false);
    // A set fetched meanwhile (the door open) still has it: still barred.
    await offline.sync();
    expect(offline.ready).toBe(false);
    // A set without it within the hour (read before its verifier was made, say) keeps the
    // bar: the parcel back in a later set is still barred.
    clock.now += HOUR - 1;
    holds(false);
    await offline.sync();
    holds(true);
    await offline.sync();
    expect(offline.ready).toBe(false);
    // A set an hour after the bar without it: the bar is forgotten (no parcel of that id
    // would come back; if one did, its code would open its door again).
    clock.now += 1;
    holds(false);
    await offline.sync();
    holds(true);
    await offline.sync();
    expect(offline.ready).toBe(true);
  });

  it('is lifted when the service is told the parcel stayed in its door', async () => {
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') };
    const { offline, holds } = pickupsAt(clock);
    holds(true);
    await offline.sync();
    offline.bar(1, [S]);
    expect(offline.ready).toBe(false);
    offline.stayed(S);
    expect(offline.ready).toBe(true);
  });
});
