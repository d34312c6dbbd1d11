import { createHash } from 'node:crypto';
import {
  ReleaseManifestSchema,
  UpdateReportRequestSchema,
  type ReleaseManifest,
  type Rollout,
  type RolloutRequest,
  type UpdateAssignment,
} from '@locker/shared';
import type { Middleware } from 'koa';
import type { Sql } from '../db/connect';
import { readJson } from '../http/body';
import { ProblemError } from '../http/problem';
import { validate } from '../http/validate';
import { audit, type Actor } from '../operators/audit';
import type { Services } from '../services';

/**
 * Stores a release as the operator's workstation made it (`pnpm --filter @locker/kiosk
 * release`). The digest and size are checked against the bundle so a truncated upload is
 * refused here; the signature is not: only the kiosks hold the key that judges it.
 */
export async function storeRelease(
  sql: Sql,
  actor: Actor,
  manifest: ReleaseManifest,
  bundle: Buffer,
): Promise<{ version: string; size: number; sha256: string }> {
  const checked = ReleaseManifestSchema.parse(manifest);
  const sha256 = createHash('sha256').update(bundle).digest('hex');
  if (sha256 !== checked.sha256 || bundle.length !== checked.size)
    throw new ProblemError(
      'validation_failed',
      `The bundle does not match its manifest (size ${bundle.length}, sha256 ${sha256}): upload both files of the same release.`,
    );
  const inserted = await sql`
    insert into kiosk_releases (version, bundle, sha256, size, signature, created_by)
    values (${checked.version}, ${bundle}, ${checked.sha256}, ${checked.size},
            ${checked.signature}, ${actor.name})
    on conflict (version) do nothing`;
  if (inserted.count === 0)
    throw new ProblemError(
      'conflict',
      `Release ${checked.version} exists already; a version is never replaced.`,
    );
  await audit(sql, actor, {
    action: 'release.upload',
    targetType: 'release',
    target: checked.version,
    outcome: 'ok',
    detail: { size: checked.size, sha256: checked.sha256 },
  });
  return { version: checked.version, size: checked.size, sha256: checked.sha256 };
}

/**
 * A terminal is in the rollout if its station is a pilot, or its stable share (the first
 * 32 bits of SHA-256 of its id, modulo 100) is below the percentage: raising the
 * percentage only adds terminals.
 */
const inRing = (sql: Sql) => sql`
  (r.pilot_stations @> array[s.code]
   or ('x' || substr(encode(sha256(t.id::text::bytea), 'hex'), 1, 8))::bit(32)::bigint % 100
      < r.percent)`;

/** Assigns a release to its rings; replaces the rollout under way. */
export async function setRollout(
  sql: Sql,
  actor: Actor,
  request: RolloutRequest,
): Promise<Rollout> {
  const [release] = await sql`select 1 from kiosk_releases where version = ${request.version}`;
  if (!release)
    throw new ProblemError('not_found', `No release ${request.version}: upload it first.`);
  const stations = [...new Set(request.pilotStations)];
  const known = await sql<{ code: string }[]>`
    select code from stations where code = any(${stations}::text[])`;
  const unknown = stations.filter((c) => !known.some((k) => k.code === c));
  if (unknown.length > 0)
    throw new ProblemError('validation_failed', `No station ${unknown.join(', ')}.`);
  await sql.begin(async (tx) => {
    await tx`
      insert into kiosk_rollout (version, pilot_stations, percent, updated_by)
      values (${request.version}, ${stations}, ${request.percent}, ${actor.name})
      on conflict (singleton) do update
        set version = excluded.version, pilot_stations = excluded.pilot_stations,
            percent = excluded.percent, updated_at = now(), updated_by = excluded.updated_by`;
    await audit(tx, actor, {
      action: 'release.rollout',
      targetType: 'release',
      target: request.version,
      outcome: 'ok',
      detail: { pilotStations: stations, percent: request.percent },
    });
  });
  return rolloutView(sql);
}

interface ViewRow {
  id: string;
  station_code: string | null;
  assigned: boolean;
  app_version: string | null;
  report_version: string | null;
  outcome: 'running' | 'rolled_back' | 'refused' | null;
  detail: string | null;
  reported_at: Date | null;
}

/** The rollout under way and every live terminal: assigned or not, what it runs. */
export async function rolloutView(sql: Sql): Promise<Rollout> {
  const [rollout] = await sql<
    {
      version: string;
      pilot_stations: string[];
      percent: number;
      updated_at: Date;
      updated_by: string;
    }[]
  >`select version, pilot_stations, percent, updated_at, updated_by from kiosk_rollout`;
  if (!rollout) throw new ProblemError('not_found', 'No release has been rolled out yet.');
  const rows = await sql<ViewRow[]>`
    select t.id, s.code as station_code, coalesce(${inRing(sql)}, false) as assigned,
           t.app_version, k.version as report_version, k.outcome, k.detail,
           k.created_at as reported_at
      from terminals t
      left join stations s on s.id = t.station_id
      cross join kiosk_rollout r
      left join lateral (
        select version, outcome, detail, created_at from kiosk_update_reports
         where terminal_id = t.id order by id desc limit 1) k on true
     where t.revoked_at is null
     order by s.code nulls last, t.created_at`;
  return {
    version: rollout.version,
    pilotStations: rollout.pilot_stations,
    percent: rollout.percent,
    updatedAt: rollout.updated_at.toISOString(),
    updatedBy: rollout.updated_by,
    terminals: rows.map((r) => ({
      id: r.id,
      stationCode: r.station_code,
      assigned: r.assigned,
      appVersion: r.app_version,
      lastReport:
        r.report_version === null
          ? null
          : {
              version: r.report_version,
              outcome: r.outcome!,
              detail: r.detail,
              at: r.reported_at!.toISOString(),
            },
    })),
  };
}

/** `GET /terminal/v1/update` (extension): the release this terminal should run, if any. */
export function updateAssignment(services: Services): Middleware {
  const { sql } = services;
  return async (ctx) => {
    const [row] = await sql<ReleaseManifest[]>`
      select k.version, k.sha256, k.size, k.signature
        from kiosk_rollout r
        join kiosk_releases k on k.version = r.version
        join terminals t on t.id = ${ctx.state.terminal.id}
        left join stations s on s.id = t.station_id
       where ${inRing(sql)}`;
    const answer: UpdateAssignment = { release: row ?? null };
    ctx.body = answer;
  };
}

const versionOf = (params: unknown): string =>
  String((params as Record<string, string | undefined>).version ?? '');

/** `GET /terminal/v1/update/bundle/{version}` (extension): the bundle's bytes. */
export function updateBundle(services: Services): Middleware {
  const { sql } = services;
  return async (ctx) => {
    const [row] = await sql<{ bundle: Buffer; sha256: string }[]>`
      select bundle, sha256 from kiosk_releases where version = ${versionOf(ctx.params)}`;
    if (!row) throw new ProblemError('not_found', 'No such release.');
    ctx.set('content-type', 'application/gzip');
    ctx.set('etag', `"${row.sha256}"`);
    ctx.set('cache-control', 'public, max-age=31536000, immutable');
    ctx.body = row.bundle;
  };
}

/** `POST /terminal/v1/update/report` (extension): what became of a release here. */
export function updateReport(services: Services): Middleware {
  const { sql } = services;
  return async (ctx) => {
    const report = validate(UpdateReportRequestSchema, await readJson(ctx));
    const terminal = ctx.state.terminal;
    await sql`
      insert into kiosk_update_reports (terminal_id, version, outcome, detail)
      values (${terminal.id}, ${report.version}, ${report.outcome}, ${report.detail ?? null})`;
    const fields = {
      terminal_id: terminal.id,
      station_code: terminal.station?.code,
      version: report.version,
      outcome: report.outcome,
      detail: report.detail,
    };
    if (report.outcome === 'running') ctx.state.log.info(fields, 'kiosk runs the release');
    else
      ctx.state.log.warn(
        { ...fields, alert: `release_${report.outcome}` },
        report.outcome === 'refused'
          ? 'a kiosk refused a release (signature or digest)'
          : 'a kiosk rolled a release back',
      );
    ctx.body = { ok: true };
  };
}
