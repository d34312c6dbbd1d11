import { makeVerifier, stationVerifierSalt } from '@locker/shared/verifier';
import type { Sql } from '../db/connect';
import type { Logger } from '../logger';
import { startPoller, type Poller } from '../ops/poller';
import type { PickupSetVersions } from './pickupSetVersions';
import { openForVerifier } from './verifierSeal';

// The offline pickup verifiers, made off the request path (issue 28; docs/decisions.md,
// "A locker on its own"). A deposit keeps its code sealed for this worker; the worker of
// each server instance claims the parcels awaiting a verifier, oldest deposit first, a few
// at a time, computes their scrypt (16 MiB, ~60 ms of a core each) on libuv's thread pool
// and stores each verifier, erasing the ciphertext, in the same statement. The rows stay
// locked (`for no key update skip locked`) from the claim to that statement, so two
// instances never compute one parcel, and a pickup, undo or take-out of a parcel being
// computed waits for it (one batch, ~60 ms) rather than racing it. A crash loses nothing:
// the ciphertext stays until its verifier is written.

/** The safety net: pending parcels are looked for this often without a nudge. */
export const VERIFIER_POLL_MS = 5000;

/** How a verifier is made: `makeVerifier` (tests count the calls). */
export type MakeVerifier = (code: string, salt: Buffer) => Promise<string>;

export interface VerifierWorkerDeps {
  sql: Sql;
  pickupCodeSecret: string;
  logger: Logger;
  /** Learns each station's new verifier version at the commit, before the notification. */
  versions?: PickupSetVersions;
  make?: MakeVerifier;
}

interface Pending {
  id: string;
  station_id: string;
  code_hash: Buffer;
  sealed: Buffer;
}

/**
 * One batch of at most `batch` parcels, in one transaction: claimed, computed at once
 * (so `batch` is the number of scrypts in flight), stored. Answers how many it claimed:
 * as many as `batch` means more may be waiting.
 */
export async function makePendingVerifiers(
  deps: VerifierWorkerDeps,
  batch: number,
): Promise<{ claimed: number; made: number }> {
  const make = deps.make ?? makeVerifier;
  const { claimed, made, versions } = await deps.sql.begin(async (tx) => {
    const pending = await tx<Pending[]>`
      select id, destination_station_id as station_id, pickup_code_hash as code_hash,
             verifier_code_sealed as sealed
        from shipments
       where verifier_code_sealed is not null and status = 'ready_for_pickup'
         and offline_verifier is null and pickup_code_hash is not null
       order by deposited_at
       limit ${batch}
         for no key update skip locked`;
    if (pending.length === 0) return { claimed: 0, made: 0, versions: [] };
    const results = await Promise.all(
      pending.map(async (p) => {
        const code = openForVerifier(deps.pickupCodeSecret, p.id, p.sealed);
        if (code === null) {
          // Sealed under another secret (changed since: its code no longer works either)
          // or tampered with: dropped, so it is not tried for ever. Online pickup remains.
          deps.logger.warn(
            { shipment_id: p.id },
            'offline verifier not made: the sealed code does not open with this secret',
          );
          return { id: p.id, code_hash: p.code_hash.toString('hex'), verifier: null };
        }
        const salt = stationVerifierSalt(deps.pickupCodeSecret, p.station_id);
        const verifier = await make(code, salt);
        return { id: p.id, code_hash: p.code_hash.toString('hex'), verifier };
      }),
    );
    // Only a parcel still awaiting pickup with the same code gets its verifier; the
    // stations' counters are taken in one order, so two workers never deadlock on them.
    const bumped = await tx<{ station_id: string; version: string }[]>`
      with made as (
        select * from jsonb_to_recordset(${tx.json(results)})
                   as m(id uuid, code_hash text, verifier text)),
      stored as (
        update shipments sh
           set offline_verifier = m.verifier, verifier_code_sealed = null
          from made m
         where sh.id = m.id and sh.status = 'ready_for_pickup' and sh.offline_verifier is null
           and sh.verifier_code_sealed is not null
           and sh.pickup_code_hash = decode(m.code_hash, 'hex')
        returning sh.destination_station_id as station_id, sh.pickup_code_hash, m.verifier),
      -- Parcels that joined the door of a parcel made here share its code (issue 27's
      -- shared doors), so they share its verifier.
      joined as (
        update shipments j
           set offline_verifier = st.verifier
          from stored st
         where st.verifier is not null and j.joined_door
           and j.destination_station_id = st.station_id
           and j.pickup_code_hash = st.pickup_code_hash
           and j.status = 'ready_for_pickup' and j.offline_verifier is null
        returning j.destination_station_id as station_id),
      counted as (
        select station_id, count(*) as n
          from (select station_id from stored where verifier is not null
                union all select station_id from joined) changed
         group by station_id)
      insert into station_verifier_versions as v (station_id, version)
      select station_id, n from counted order by station_id
      on conflict (station_id) do update set version = v.version + excluded.version
      returning station_id, version`;
    return {
      claimed: pending.length,
      made: results.filter((r) => r.verifier !== null).length,
      versions: bumped,
    };
  });
  for (const v of versions) deps.versions?.note(v.station_id, BigInt(v.version));
  if (made > 0) deps.logger.debug({ verifiers: made }, 'offline verifiers made');
  return { claimed, made };
}

/**
 * The worker of this instance: `concurrency` scrypts at most in flight (0: this instance
 * makes none, others do), woken by a nudge after each deposit and every 5 s regardless.
 */
export function startVerifierWorker(
  deps: VerifierWorkerDeps,
  concurrency: number,
  pollMs = VERIFIER_POLL_MS,
): Poller | undefined {
  if (concurrency <= 0) return undefined;
  return startPoller('verifiers', pollMs, deps.logger, async () => {
    const { claimed } = await makePendingVerifiers(deps, concurrency);
    return claimed >= concurrency;
  });
}
