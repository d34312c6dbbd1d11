import Router from '@koa/router';
import {
  AlertActionRequestSchema,
  AlertListQuerySchema,
  AuditQuerySchema,
  CreateCourierRequestSchema,
  CreateOperatorRequestSchema,
  CreateOrganizationRequestSchema,
  CreateTerminalRequestSchema,
  DoorServiceRequestSchema,
  LinkCommandRequestSchema,
  RemoteOpenRequestSchema,
  ParcelSearchQuerySchema,
  ReasonRequestSchema,
  RolloutRequestSchema,
  StationListQuerySchema,
  TerminalListQuerySchema,
  text,
} from '@locker/shared';
import { Readable } from 'node:stream';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { acknowledgeAlert, listAlerts, resolveAlert } from '../alerts/lifecycle';
import type { Services } from '../services';
import { NO_BODY, readJson } from '../http/body';
import { validate } from '../http/validate';
import { audit } from '../operators/audit';
import {
  createOperator,
  deactivateOperator,
  listOperators,
  resetOperator,
} from '../operators/accounts';
import { allow, operatorSession, requireRecentSecondFactor, sameOrigin } from './auth';
import { ProblemError } from '../http/problem';
import type { LinkCommandView } from '../link/commands';
import { logBundle } from '../link/logBundles';
import {
  approveRemoteOpen,
  presentCommand,
  requestRemoteOpen,
  requestStationCommand,
} from '../link/remoteOpen';
import { stationByCode } from './fleet';
import { auditCsv, listAudit } from './auditLog';
import { createCourier, deactivateCourier, listCouriers } from './couriers';
import { setDoorService } from './doors';
import { fleetOverview, listStations, stationDetail } from './fleet';
import type { Actor } from '../operators/audit';
import {
  createOrganization,
  issueApiKey,
  listKeys,
  listOrganizations,
  revokeApiKey,
} from './organizations';
import { overdueParcels, searchParcels } from './parcels';
import {
  currentSession,
  login,
  logout,
  logoutEverywhere,
  secondFactor,
  setup,
  stepUpRoute,
} from './session';
import { alertStream } from './stream';
import { changeTerminal, createTerminal, listTerminals, newEnrolmentCode } from './terminals';
import { rolloutView, setRollout } from '../updates/releases';

async function bodyOf<S extends z.ZodType>(ctx: Context, schema: S): Promise<z.infer<S>> {
  const sent = await readJson(ctx);
  return validate(schema, sent === NO_BODY ? {} : sent, 'validation_failed');
}

const queryOf = <S extends z.ZodType>(ctx: Context, schema: S): z.infer<S> =>
  validate(schema, { ...ctx.query }, 'validation_failed');

// Strings by the shared text rule: U+0000 or an unpaired surrogate is a 422, not a 500.
const ListQuery = z.strictObject({
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  q: text().trim().max(100).optional(),
  active: z.enum(['true', 'false']).optional(),
});
const Position = z.coerce.number().int().min(1).max(10_000);

/**
 * The operations interface, /ops/v1: operators signed in with a session cookie. Every
 * route names the permission it needs, checked on the server whatever the console shows;
 * technicians are further confined to their stations in each operation.
 */
export function opsRouter(services: Services): Router {
  const { sql } = services;
  const router = new Router({ prefix: '/ops/v1' });
  router.use(sameOrigin(services.config));
  const signedIn = operatorSession(services);
  const pending = operatorSession(services, { allowPending: true });
  const can = (permission: Parameters<typeof allow>[1], action: string): Middleware[] => [
    signedIn,
    allow(services, permission, action),
  ];

  // Sessions.
  router.post('/setup', setup(services));
  router.post('/session', login(services));
  router.post('/session/second-factor', pending, secondFactor(services));
  router.post('/session/step-up', signedIn, stepUpRoute(services));
  router.get('/session', signedIn, currentSession(services));
  router.delete('/session', pending, logout(services));
  router.delete('/sessions', signedIn, logoutEverywhere(services));

  // Operators.
  router.get('/operators', ...can('operators.manage', 'operator.list'), async (ctx) => {
    ctx.body = { items: await listOperators(sql, ctx.state.actor), next_cursor: null };
  });
  router.post('/operators', ...can('operators.manage', 'operator.create'), async (ctx) => {
    const input = await bodyOf(ctx, CreateOperatorRequestSchema);
    ctx.status = 201;
    ctx.body = await createOperator(sql, ctx.state.actor, input, services.config.opsPublicUrl);
  });
  router.post(
    '/operators/:email/deactivate',
    ...can('operators.manage', 'operator.deactivate'),
    async (ctx) => {
      ctx.body = await deactivateOperator(sql, ctx.state.actor, ctx.params.email!);
    },
  );
  router.post(
    '/operators/:email/reset',
    ...can('operators.manage', 'operator.reset'),
    async (ctx) => {
      ctx.body = await resetOperator(
        sql,
        ctx.state.actor,
        ctx.params.email!,
        services.config.opsPublicUrl,
      );
    },
  );

  // Fleet and stations.
  router.get('/overview', ...can('stations.read', 'fleet.overview'), async (ctx) => {
    ctx.body = await fleetOverview(sql, ctx.state.actor);
  });
  router.get('/stations', ...can('stations.read', 'station.list'), async (ctx) => {
    ctx.body = await listStations(sql, ctx.state.actor, queryOf(ctx, StationListQuerySchema));
  });
  router.get('/stations/:code', ...can('stations.read', 'station.read'), async (ctx) => {
    ctx.body = await stationDetail(sql, ctx.state.actor, ctx.params.code!);
  });
  router.get('/stations/:code/overdue', ...can('parcels.read', 'parcel.overdue'), async (ctx) => {
    ctx.body = await overdueParcels(sql, ctx.state.actor, ctx.params.code!);
  });
  router.post(
    '/stations/:code/doors/:position/service',
    ...can('doors.service', 'door.service'),
    async (ctx) => {
      const position = validate(Position, ctx.params.position, 'validation_failed');
      const input = await bodyOf(ctx, DoorServiceRequestSchema);
      ctx.body = await setDoorService(
        sql,
        ctx.state.actor,
        { station: ctx.params.code!, position, inService: input.in_service, reason: input.reason },
        (stationId) => services.cabinetChanged(stationId),
      );
      // The kiosk hears of it at once over the live link (its grid shows it on the next
      // poll, which the link's hint brings forward too); no link key, no command.
      if (services.config.linkSigningKey)
        await services.link.commands
          .issue({
            stationCode: ctx.params.code!,
            door: position,
            kind: 'door_service',
            args: { inService: input.in_service },
            issuedBy: ctx.state.actor.name,
            reason: input.reason,
          })
          .catch((error: unknown) =>
            services.logger.warn({ err: error }, 'door service command not issued'),
          );
    },
  );

  // The live link to kiosks (server/src/link): remote opens and the other commands.
  const link = () => ({ sql, commands: services.link.commands, logger: services.logger });
  /** The command once it has an outcome (200), or after `wait` seconds as it stands (202). */
  const answerCommand = async (ctx: Context, command: LinkCommandView, wait = 10) => {
    const latest =
      wait > 0 ? await services.link.commands.waitForOutcome(command.id, wait * 1000) : command;
    const finished = latest?.status === 'done' || latest?.status === 'expired';
    ctx.status = finished ? 200 : 202;
    if (!finished) ctx.set('Location', `/ops/v1/link/commands/${command.id}`);
    ctx.body = presentCommand(latest ?? command);
  };
  /** A physical action: the second factor within 5 minutes, else 403 (audited). */
  const stepUpFor = async (ctx: Context, action: string, target: string) => {
    try {
      requireRecentSecondFactor(ctx);
    } catch (error) {
      await audit(sql, ctx.state.actor, {
        action,
        targetType: 'door',
        target,
        outcome: 'refused',
        detail: { why: 'second factor not entered within 5 minutes' },
      });
      throw error;
    }
  };
  router.post(
    '/stations/:code/doors/:position/open',
    ...can('doors.open', 'door.remote_open'),
    async (ctx) => {
      const position = validate(Position, ctx.params.position, 'validation_failed');
      await stepUpFor(ctx, 'door.remote_open', `${ctx.params.code}/${position}`);
      const input = await bodyOf(ctx, RemoteOpenRequestSchema);
      const result = await requestRemoteOpen(link(), ctx.state.actor, {
        station: ctx.params.code!,
        position,
        reason: input.reason,
      });
      if (result.kind === 'approval_required') {
        throw new ProblemError(
          'approval_required',
          `${result.why}: another administrator must approve it (POST /ops/v1/link/approvals/${result.approvalId}/approve) within 5 minutes.`,
          undefined,
          { Location: `/ops/v1/link/approvals/${result.approvalId}` },
        );
      }
      await answerCommand(ctx, result.command, input.wait_seconds);
    },
  );
  router.post(
    '/link/approvals/:id/approve',
    ...can('operators.manage', 'door.remote_open.approve'),
    async (ctx) => {
      await stepUpFor(ctx, 'door.remote_open.approve', ctx.params.id!);
      const input = await bodyOf(ctx, LinkCommandRequestSchema.pick({ wait_seconds: true }));
      const command = await approveRemoteOpen(link(), ctx.state.actor, ctx.params.id!);
      await answerCommand(ctx, command, input.wait_seconds);
    },
  );
  const STATION_COMMANDS = {
    'refresh-config': 'refresh_config',
    'reload-screen': 'reload_screen',
    'upload-logs': 'upload_logs',
  } as const;
  for (const [path, kind] of Object.entries(STATION_COMMANDS)) {
    router.post(
      `/stations/:code/link/${path}`,
      ...can('terminals.manage', `link.${kind}`),
      async (ctx) => {
        const input = await bodyOf(ctx, LinkCommandRequestSchema);
        const command = await requestStationCommand(link(), ctx.state.actor, {
          station: ctx.params.code!,
          kind,
          args: kind === 'upload_logs' ? { minutes: input.minutes ?? 30 } : {},
          reason: input.reason ?? null,
        });
        await answerCommand(ctx, command, input.wait_seconds);
      },
    );
  }
  /** The command, if the operator may see its station (404 otherwise, as for no command). */
  const commandFor = async (actor: Actor, id: string, action: string) => {
    const command = await services.link.commands.get(id);
    if (!command) throw new ProblemError('not_found', `No command ${id}.`);
    await stationByCode(sql, actor, command.stationCode, action);
    return command;
  };
  router.get('/link/commands/:id', ...can('stations.read', 'link.command.read'), async (ctx) => {
    ctx.body = presentCommand(
      await commandFor(ctx.state.actor, ctx.params.id!, 'link.command.read'),
    );
  });
  router.get(
    '/link/commands/:id/logs',
    ...can('terminals.manage', 'link.logs.read'),
    async (ctx) => {
      const command = await commandFor(ctx.state.actor, ctx.params.id!, 'link.logs.read');
      const bundle = await logBundle(sql, command.id);
      if (!bundle) throw new ProblemError('not_found', 'The kiosk has not uploaded these logs.');
      await audit(sql, ctx.state.actor, {
        action: 'link.logs.read',
        targetType: 'station',
        target: command.stationCode,
        outcome: 'ok',
        detail: { command_id: command.id },
      });
      ctx.type = 'application/gzip';
      ctx.set(
        'Content-Disposition',
        `attachment; filename="kiosk-logs-${command.stationCode}-${command.id}.jsonl.gz"`,
      );
      ctx.body = bundle.body;
    },
  );

  // Parcels.
  router.get('/parcels', ...can('parcels.read', 'parcel.search'), async (ctx) => {
    ctx.body = await searchParcels(sql, ctx.state.actor, queryOf(ctx, ParcelSearchQuerySchema));
  });

  // Alerts.
  router.get('/alerts', ...can('alerts.read', 'alert.list'), async (ctx) => {
    ctx.body = await listAlerts(sql, ctx.state.actor, queryOf(ctx, AlertListQuerySchema));
  });
  router.get('/alerts/stream', ...can('alerts.read', 'alert.stream'), alertStream(services));
  router.post(
    '/alerts/:id/acknowledge',
    ...can('alerts.manage', 'alert.acknowledge'),
    async (ctx) => {
      const input = await bodyOf(ctx, AlertActionRequestSchema);
      ctx.body = await acknowledgeAlert(sql, ctx.state.actor, ctx.params.id!, input.note);
    },
  );
  router.post('/alerts/:id/resolve', ...can('alerts.manage', 'alert.resolve'), async (ctx) => {
    const input = await bodyOf(ctx, AlertActionRequestSchema);
    ctx.body = await resolveAlert(sql, ctx.state.actor, ctx.params.id!, input.note);
  });

  // Terminals.
  router.get('/terminals', ...can('terminals.read', 'terminal.list'), async (ctx) => {
    ctx.body = await listTerminals(sql, ctx.state.actor, queryOf(ctx, TerminalListQuerySchema));
  });
  router.post('/terminals', ...can('terminals.manage', 'terminal.create'), async (ctx) => {
    const input = await bodyOf(ctx, CreateTerminalRequestSchema);
    ctx.status = 201;
    ctx.body = await createTerminal(
      sql,
      ctx.state.actor,
      input.station,
      services.config.pickupCodeSecret,
    );
  });
  router.post(
    '/terminals/:id/enrolment-code',
    ...can('terminals.manage', 'terminal.enrolment_code'),
    async (ctx) => {
      ctx.status = 201;
      ctx.body = await newEnrolmentCode(
        sql,
        ctx.state.actor,
        ctx.params.id!,
        services.config.pickupCodeSecret,
      );
    },
  );
  for (const change of ['disable', 'enable', 'revoke'] as const) {
    router.post(
      `/terminals/:id/${change}`,
      ...can('terminals.manage', `terminal.${change}`),
      async (ctx) => {
        const input = await bodyOf(ctx, ReasonRequestSchema);
        ctx.body = await changeTerminal(sql, ctx.state.actor, ctx.params.id!, change, input.reason);
      },
    );
  }

  // Kiosk releases: the rollout under way and its rings (uploads: `pnpm admin release upload`).
  router.get('/kiosk-rollout', ...can('releases.manage', 'release.view'), async (ctx) => {
    ctx.body = await rolloutView(sql);
  });
  router.put('/kiosk-rollout', ...can('releases.manage', 'release.rollout'), async (ctx) => {
    const input = await bodyOf(ctx, RolloutRequestSchema);
    ctx.body = await setRollout(sql, ctx.state.actor, input);
  });

  // Couriers.
  router.get('/couriers', ...can('couriers.read', 'courier.list'), async (ctx) => {
    ctx.body = await listCouriers(sql, queryOf(ctx, ListQuery));
  });
  router.post('/couriers', ...can('couriers.manage', 'courier.create'), async (ctx) => {
    const input = await bodyOf(ctx, CreateCourierRequestSchema);
    ctx.status = 201;
    ctx.body = await createCourier(sql, ctx.state.actor, input);
  });
  router.post(
    '/couriers/:number/deactivate',
    ...can('couriers.manage', 'courier.deactivate'),
    async (ctx) => {
      const input = await bodyOf(ctx, ReasonRequestSchema);
      ctx.body = await deactivateCourier(sql, ctx.state.actor, ctx.params.number!, input.reason);
    },
  );

  // Organizations and API keys.
  router.get('/organizations', ...can('organizations.read', 'organization.list'), async (ctx) => {
    const { cursor, limit } = queryOf(ctx, ListQuery.pick({ cursor: true, limit: true }));
    ctx.body = await listOrganizations(sql, { cursor, limit });
  });
  router.post(
    '/organizations',
    ...can('organizations.manage', 'organization.create'),
    async (ctx) => {
      const input = await bodyOf(ctx, CreateOrganizationRequestSchema);
      ctx.status = 201;
      ctx.body = await createOrganization(sql, ctx.state.actor, input.name);
    },
  );
  router.get(
    '/organizations/:id/keys',
    ...can('organizations.manage', 'api_key.list'),
    async (ctx) => {
      ctx.body = await listKeys(sql, ctx.params.id!);
    },
  );
  router.post(
    '/organizations/:id/keys',
    ...can('organizations.manage', 'api_key.issue'),
    async (ctx) => {
      ctx.status = 201;
      ctx.body = await issueApiKey(sql, ctx.state.actor, ctx.params.id!, false);
    },
  );
  router.post(
    '/organizations/:id/keys/rotate',
    ...can('organizations.manage', 'api_key.rotate'),
    async (ctx) => {
      ctx.status = 201;
      ctx.body = await issueApiKey(sql, ctx.state.actor, ctx.params.id!, true);
    },
  );
  router.post(
    '/organizations/:id/keys/:keyId/revoke',
    ...can('organizations.manage', 'api_key.revoke'),
    async (ctx) => {
      const input = await bodyOf(ctx, ReasonRequestSchema);
      ctx.body = await revokeApiKey(
        sql,
        ctx.state.actor,
        ctx.params.id!,
        ctx.params.keyId!,
        input.reason,
      );
    },
  );

  // Audit.
  router.get('/audit', ...can('audit.read', 'audit.read'), async (ctx) => {
    ctx.body = await listAudit(sql, queryOf(ctx, AuditQuerySchema));
  });
  router.get('/audit/export', ...can('audit.read', 'audit.export'), async (ctx) => {
    const query = queryOf(ctx, AuditQuerySchema.omit({ cursor: true, limit: true }));
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', 'attachment; filename="audit.csv"');
    await audit(sql, ctx.state.actor, { action: 'audit.export', outcome: 'ok', detail: query });
    ctx.body = Readable.from(auditCsv(sql, query));
  });
  return router;
}
