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
  /** When set, the next fetch's answer waits for it (a fetch in flight). */
  let held: Promise<void> | null = null;
  const client = {
    offlinePickups: async () => {
      // The set as it is when the service reads it: before any wait.
      const answer = {
        ok: true,
        value: { set: { version: String(++n), pickups }, etag: `"${n}"` },
        correlationId: 'c',
      };
      await held;
      return answer;
    },
  } as unknown as TerminalClient;
  const db = openKioskDatabase(mkdtempSync(path.join(tmpdir(), 'pickups-')));
  const offline = new OfflinePickups({
    db,
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
  const hold = () => {
    let release!: () => void;
    held = new Promise<void>((r) => (release = r));
    return () => {
      held = null;
      release();
    };
  };
  return { offline, holds, hold, db };
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

  it('is lifted by a confirm that the parcel stayed made after it, not before', async () => {
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') };
    const { offline, holds } = pickupsAt(clock);
    holds(true);
    await offline.sync();
    offline.bar(1, [S]);
    // Its door shut with it inside; opened again online before that confirm was answered.
    clock.now += 20_000;
    const shut = clock.now;
    clock.now += 60_000;
    offline.bar(1, [S]);
    offline.stayed(S, shut);
    expect(offline.ready).toBe(false);
    offline.stayed(S, clock.now + 20_000);
    expect(offline.ready).toBe(true);
  });

  it('bars the parcels of a barred door in a set that was in flight when the door was barred', async () => {
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') };
    const { offline, holds, hold } = pickupsAt(clock);
    // The set held has nothing in door 1; a fetch goes out and reads S in door 1.
    holds(false);
    await offline.sync();
    holds(true);
    const release = hold();
    const inFlight = offline.sync();
    await new Promise((r) => setTimeout(r, 0));
    clock.now += 1_000;
    offline.bar(1);
    release();
    await inFlight;
    expect(offline.held()).toBe(1);
    expect(offline.ready).toBe(false);
  });

  it('hands nothing out on its own once a bar could not be written', async () => {
    const clock = { now: Date.parse('2026-11-30T12:00:00Z') };
    const { offline, holds, db } = pickupsAt(clock);
    holds(true);
    await offline.sync();
    db.exec(
      "create trigger no_disk before insert on offline_barred begin select raise(abort, 'disk I/O error'); end",
    );
    expect(() => offline.bar(1, [S])).toThrow(/disk/);
    expect(offline.ready).toBe(false);
    expect(await offline.match('12345678')).toBeNull();
  });
});
