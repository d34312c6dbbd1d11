/**
 * The offline pickup's figures (issue 25), on this machine:
 *   - the size of a 48-door station's verifier set, as the service sends it and as the
 *     kiosk keeps it;
 *   - the time to check a typed code on the kiosk (valid and wrong), which must stay under
 *     300 ms at the keypad, and so what each guess costs an attacker holding the set.
 *
 *   pnpm --filter @locker/kiosk bench
 */
import Database from 'better-sqlite3';
import { randomInt, randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { OfflinePickupsResponse } from '@locker/shared';
import { OFFLINE_SCRYPT, makeVerifier, stationVerifierSalt } from '@locker/shared/verifier';
import { migrate } from '../src/core/database';
import { OfflinePickups, type OfflinePickupDeps } from '../src/core/offlinePickup';

const DOORS = 48;
const RUNS = 30;
const pct = (v: number[], p: number) =>
  [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor((p / 100) * v.length))]!;

const salt = stationVerifierSalt('bench-secret', randomUUID());
const codes = Array.from({ length: DOORS }, () => String(randomInt(0, 1e8)).padStart(8, '0'));
const made: number[] = [];
const pickups: OfflinePickupsResponse['pickups'] = [];
for (const [i, code] of codes.entries()) {
  const started = performance.now();
  const verifier = await makeVerifier(code, salt);
  made.push(performance.now() - started);
  pickups.push({
    shipmentId: randomUUID(),
    door: i + 1,
    collectUntil: new Date(Date.now() + 7 * 86400_000).toISOString(),
    verifier,
  });
}
const set: OfflinePickupsResponse = { version: '1', pickups };
const wire = Buffer.byteLength(JSON.stringify(set));

const db = new Database(':memory:');
migrate(db);
const insert = db.prepare(
  'insert into offline_pickups (shipment_id, door, collect_until, verifier) values (?, ?, ?, ?)',
);
for (const p of pickups) insert.run(p.shipmentId, p.door, p.collectUntil, p.verifier);
db.prepare(
  "insert into offline_sets (name, etag, version, received_at) values ('pickups', null, '1', 0)",
).run();
const stored = (
  db
    .prepare(
      'select sum(length(shipment_id) + 8 + length(collect_until) + length(verifier)) as n from offline_pickups',
    )
    .get() as { n: number }
).n;
const offline = new OfflinePickups({ db } as unknown as OfflinePickupDeps);

const valid: number[] = [];
const wrong: number[] = [];
for (let i = 0; i < RUNS; i++) {
  let started = performance.now();
  const found = await offline.match(codes[i % DOORS]!);
  valid.push(performance.now() - started);
  if (found?.door !== (i % DOORS) + 1) throw new Error('a valid code was not found');
  started = performance.now();
  if (await offline.match('99999999x')) throw new Error('a wrong code was found');
  wrong.push(performance.now() - started);
}
const perGuessMs = pct(wrong, 50);
const space = 1e8;
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
console.log(
  [
    `offline pickup verifiers (scrypt ln=${OFFLINE_SCRYPT.ln} r=${OFFLINE_SCRYPT.r} p=${OFFLINE_SCRYPT.p}: ${(128 * 2 ** OFFLINE_SCRYPT.ln * OFFLINE_SCRYPT.r) / 2 ** 20} MiB per derivation), load average ${loadavg()[0]!.toFixed(1)}`,
    `  a ${DOORS}-door station's set: ${(wire / 1024).toFixed(1)} KiB as sent (JSON), ${(stored / 1024).toFixed(1)} KiB of rows kept; ${pickups[0]!.verifier.length} characters per verifier`,
    `  made by the service at a deposit: p50 ${fmt(pct(made, 50))}, p95 ${fmt(pct(made, 95))}`,
    `  a code checked at the keypad (${RUNS} runs): valid p50 ${fmt(pct(valid, 50))}, p95 ${fmt(pct(valid, 95))}; wrong p50 ${fmt(pct(wrong, 50))}, p95 ${fmt(pct(wrong, 95))}`,
    `  each guess against the whole set costs one derivation (${fmt(perGuessMs)} of one core here); the whole 8-digit space ${((space * perGuessMs) / 86400_000).toFixed(0)} core-days, one of ${DOORS} codes on average ${(((space / (DOORS + 1)) * perGuessMs) / 86400_000).toFixed(1)} core-days`,
  ].join('\n'),
);
