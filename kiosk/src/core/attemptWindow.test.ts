import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AttemptWindow } from './attemptWindow';
import { migrate, openKioskDatabase } from './database';

describe('the kiosk-side sliding window', () => {
  it('allows 10 attempts in any minute, refuses the 11th with the seconds until one leaves', () => {
    const db = new Database(':memory:');
    migrate(db);
    let now = 1_000_000;
    const window = new AttemptWindow(db, 'pickup', 10, () => now);
    for (let i = 0; i < 10; i++, now += 1000) expect(window.attempt()).toEqual({ allowed: true });
    // Attempts at 1,000,000 to 1,009,000, this one at 1,010,000 (refused ones count): the
    // one at 1,001,000 must leave the window for a retry to be the 10th in it, in 51 s.
    expect(window.attempt()).toEqual({ allowed: false, retryAfterSeconds: 51 });
    now += 50_000;
    expect(window.attempt()).toMatchObject({ allowed: false });
    // Retrying exactly when told is allowed (the service's rule).
    const told = window.attempt();
    expect(told).toMatchObject({ allowed: false });
    now += (told as { retryAfterSeconds: number }).retryAfterSeconds * 1000;
    expect(window.attempt()).toEqual({ allowed: true });
    // Another kind keeps its own window.
    expect(new AttemptWindow(db, 'courier', 10, () => now).attempt()).toEqual({ allowed: true });
  });

  it('keeps its window across a restart of the kiosk', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kiosk-window-'));
    const now = () => 5_000_000;
    let db = openKioskDatabase(dir);
    const first = new AttemptWindow(db, 'pickup', 10, now);
    for (let i = 0; i < 10; i++) first.attempt();
    db.close();
    db = openKioskDatabase(dir);
    expect(new AttemptWindow(db, 'pickup', 10, now).attempt()).toMatchObject({ allowed: false });
    // Online attempts count too (the service judged them): none is free when it drops.
    db.prepare('delete from attempts').run();
    const again = new AttemptWindow(db, 'pickup', 10, now);
    for (let i = 0; i < 10; i++) again.record();
    expect(again.attempt()).toMatchObject({ allowed: false });
    db.close();
  });
});
