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
  ParcelSearchQuerySchema,
  ReasonRequestSchema,
  StationListQuerySchema,
  TerminalListQuerySchema,
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
import { allow, operatorSession, sameOrigin } from './auth';
import { auditCsv, listAudit } from './auditLog';
import { createCourier, deactivateCourier, listCouriers } from './couriers';
import { setDoorService } from './doors';
import { fleetOverview, listStations, stationDetail } from './fleet';
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
import { changeTerminal, createTerminal, listTerminals } from './terminals';

async function bodyOf<S extends z.ZodType>(ctx: Context, schema: S): Promise<z.infer<S>> {
  const sent = await readJson(ctx);
  return validate(schema, sent === NO_BODY ? {} : sent, 'validation_failed');
}

const queryOf = <S extends z.ZodType>(ctx: Context, schema: S): z.infer<S> =>
  validate(schema, { ...ctx.query }, 'validation_failed');

const ListQuery = z.strictObject({
  cursor: z.string().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  q: z.string().trim().max(100).optional(),
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
    ctx.body = await createTerminal(sql, ctx.state.actor, input.station);
  });
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
