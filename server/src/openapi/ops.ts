import {
  AlertActionRequestSchema,
  AlertListQuerySchema,
  AlertListSchema,
  AlertSchema,
  AlertStreamEventSchema,
  ApiKeyIssuedSchema,
  ApiKeyListSchema,
  ApiKeySchema,
  AuditListSchema,
  AuditQuerySchema,
  CourierListSchema,
  CourierSchema,
  CreateCourierRequestSchema,
  CreateOperatorRequestSchema,
  CreateOrganizationRequestSchema,
  CreateTerminalRequestSchema,
  CurrentSessionSchema,
  DoorServiceAnswerSchema,
  DoorServiceRequestSchema,
  FleetOverviewSchema,
  LinkCommandRequestSchema,
  LinkCommandViewSchema,
  RemoteOpenRequestSchema,
  LoginRequestSchema,
  OperatorListSchema,
  OperatorSchema,
  OperatorSetupIssuedSchema,
  OrganizationCreatedSchema,
  OrganizationListSchema,
  OverdueListSchema,
  ParcelSearchQuerySchema,
  ParcelSearchSchema,
  ReasonRequestSchema,
  SecondFactorRequestSchema,
  SessionAnswerSchema,
  SetupRequestSchema,
  StationDetailSchema,
  StationListQuerySchema,
  StationListSchema,
  StepUpRequestSchema,
  TerminalCreatedSchema,
  EnrolmentCodeIssuedSchema,
  RolloutRequestSchema,
  RolloutSchema,
  TerminalListQuerySchema,
  TerminalListSchema,
  TerminalViewSchema,
  text,
} from '@locker/shared';
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { problems as problemsOf } from './parts';

const json = (schema: z.ZodType, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});
/** The operation's problems; 400, 408 and 413 too where it reads a body. */
const problems = (...statuses: number[]) => problemsOf('ops', statuses, false);
const problemsWithBody = (...statuses: number[]) => problemsOf('ops', statuses, true);

const ops = { tags: ['operations'], security: [{ operatorSession: [] }] };

function body(schema: z.ZodType, required = true) {
  return { required, content: { 'application/json': { schema } } };
}

/**
 * The operations interface (/ops/v1). Unsafe methods need `Origin` of the console (CSRF);
 * 401 `unauthorized` without a live session, `second_factor_required` half signed in; 403
 * `forbidden` for a role or station outside the operator's scope (and audited).
 */
export function opsPaths(): ZodOpenApiPathsObject {
  return withOperationIds(paths());
}

/**
 * Every operation's `operationId`, made from its method and path: `post
 * /ops/v1/session/second-factor` is `opsPostSessionSecondFactor`, a path parameter `ByName`.
 */
function withOperationIds(all: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const words = (path: string) =>
    path
      .replace('/ops/v1/', '')
      .split(/[/-]/)
      .map((w) =>
        w.replace(/^\{(\w)(\w*)\}$/, (_, a: string, b: string) => `by${a.toUpperCase()}${b}`),
      )
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('');
  return Object.fromEntries(
    Object.entries(all).map(([path, methods]) => [
      path,
      Object.fromEntries(
        Object.entries(methods as Record<string, ZodOpenApiOperationObject>).map(([method, op]) => [
          method,
          {
            operationId: `ops${method.charAt(0).toUpperCase()}${method.slice(1)}${words(path)}`,
            ...op,
          },
        ]),
      ),
    ]),
  );
}

function paths(): ZodOpenApiPathsObject {
  const op = (
    summary: string,
    response: z.ZodType | null,
    errors: number[],
    extra: Partial<ZodOpenApiOperationObject> = {},
    status = '200',
  ): ZodOpenApiOperationObject => ({
    ...ops,
    summary,
    ...extra,
    responses: {
      [status]: response ? json(response, 'OK') : { description: 'Done' },
      ...(extra.requestBody ? problemsWithBody(...errors) : problems(...errors)),
    },
  });
  const code = { path: z.object({ code: text() }) };
  const id = { path: z.object({ id: text() }) };
  const email = { path: z.object({ email: text() }) };
  const number = { path: z.object({ number: text() }) };
  return {
    '/ops/v1/setup': {
      post: {
        ...op(
          'Set a password with the one-time set-up token',
          null,
          [401, 403, 422, 429],
          {
            security: [],
            requestBody: body(SetupRequestSchema),
          },
          '204',
        ),
      },
    },
    '/ops/v1/session': {
      post: op(
        'Sign in with e-mail and password; sets the session cookie. Unknown e-mail and wrong password answer alike',
        SessionAnswerSchema,
        [400, 401, 403, 429],
        { security: [], requestBody: body(LoginRequestSchema) },
      ),
      get: op('The signed-in operator and the session’s expiry', CurrentSessionSchema, [401]),
      delete: op('Sign out (this session)', null, [401, 403], {}, '204'),
    },
    '/ops/v1/sessions': {
      delete: op(
        'Sign out everywhere (every session of this operator)',
        null,
        [401, 403],
        {},
        '204',
      ),
    },
    '/ops/v1/session/second-factor': {
      post: op(
        'Finish signing in with the authenticator’s code or a recovery code (the first time: confirms the enrolment and answers the recovery codes, once)',
        SessionAnswerSchema,
        [400, 401, 403, 409, 429],
        { requestBody: body(SecondFactorRequestSchema) },
      ),
    },
    '/ops/v1/session/step-up': {
      post: op(
        'Enter the code again: physical actions (remote open) need one from the last 5 minutes',
        null,
        [401, 403, 429],
        { requestBody: body(StepUpRequestSchema) },
        '204',
      ),
    },
    '/ops/v1/operators': {
      get: op('Every operator (admin)', OperatorListSchema, [401, 403]),
      post: op(
        'A new operator and their one-time set-up link (admin)',
        OperatorSetupIssuedSchema,
        [401, 403, 409, 422],
        { requestBody: body(CreateOperatorRequestSchema) },
        '201',
      ),
    },
    '/ops/v1/operators/{email}/deactivate': {
      post: op(
        'Deactivate an operator; their sessions end (admin)',
        OperatorSchema,
        [401, 403, 404],
        {
          requestParams: email,
        },
      ),
    },
    '/ops/v1/operators/{email}/reset': {
      post: op(
        'Clear password and second factor, end sessions, issue a new set-up link (admin)',
        OperatorSetupIssuedSchema,
        [401, 403, 404],
        { requestParams: email },
      ),
    },
    '/ops/v1/overview': {
      get: op(
        'The first screen’s counts: alerts by severity, stations offline, doors out of service, parcels overdue',
        FleetOverviewSchema,
        [401, 403],
      ),
    },
    '/ops/v1/stations': {
      get: op(
        'The fleet: stations with door, parcel, terminal and alert counts; filtered, sorted, by cursor',
        StationListSchema,
        [401, 403, 422],
        {
          requestParams: { query: StationListQuerySchema },
        },
      ),
    },
    '/ops/v1/stations/{code}': {
      get: op(
        'One station: each door and what it holds, terminals, active alerts',
        StationDetailSchema,
        [401, 403, 404],
        {
          requestParams: code,
        },
      ),
    },
    '/ops/v1/stations/{code}/overdue': {
      get: op(
        'Deliveries past free storage, in ageing groups',
        OverdueListSchema,
        [401, 403, 404],
        {
          requestParams: code,
        },
      ),
    },
    '/ops/v1/stations/{code}/doors/{position}/service': {
      post: op(
        'Take a door out of service or back in, with the reason (audited)',
        DoorServiceAnswerSchema,
        [401, 403, 404, 422],
        {
          requestParams: { path: z.object({ code: text(), position: z.number().int() }) },
          requestBody: body(DoorServiceRequestSchema),
        },
      ),
    },
    '/ops/v1/stations/{code}/doors/{position}/open': {
      post: op(
        'Open one door remotely over the live link (reason required; the second factor entered within 5 minutes, else 403 step_up_required). 200 with the outcome (opened, did_not_open, unknown, already_open, expired), or 202 with Location to poll after wait_seconds. Past 3 opens a minute per operator or 10 across the network: 429 approval_required, Location the approval a second administrator gives',
        LinkCommandViewSchema,
        [401, 403, 404, 422, 429],
        {
          requestParams: { path: z.object({ code: z.string(), position: z.number().int() }) },
          requestBody: body(RemoteOpenRequestSchema),
        },
      ),
    },
    '/ops/v1/link/approvals/{id}/approve': {
      post: op(
        'A second administrator approves a remote open held back by the limits (not the one who asked; within 5 minutes); answers as the open does',
        LinkCommandViewSchema,
        [401, 403, 404, 409],
        {
          requestParams: id,
          requestBody: body(LinkCommandRequestSchema.pick({ wait_seconds: true }), false),
        },
      ),
    },
    '/ops/v1/stations/{code}/link/refresh-config': {
      post: op(
        'The kiosk fetches its configuration now (the live link)',
        LinkCommandViewSchema,
        [401, 403, 404, 422],
        { requestParams: code, requestBody: body(LinkCommandRequestSchema, false) },
      ),
    },
    '/ops/v1/stations/{code}/link/reload-screen': {
      post: op(
        'The kiosk reloads its screen (the live link)',
        LinkCommandViewSchema,
        [401, 403, 404, 422],
        { requestParams: code, requestBody: body(LinkCommandRequestSchema, false) },
      ),
    },
    '/ops/v1/stations/{code}/link/upload-logs': {
      post: op(
        'The kiosk uploads its logs of the last `minutes` (default 30); fetch them with GET /ops/v1/link/commands/{id}/logs',
        LinkCommandViewSchema,
        [401, 403, 404, 422],
        { requestParams: code, requestBody: body(LinkCommandRequestSchema, false) },
      ),
    },
    '/ops/v1/link/commands/{id}': {
      get: op('A command to a kiosk and what came of it', LinkCommandViewSchema, [401, 403, 404], {
        requestParams: id,
      }),
    },
    '/ops/v1/link/commands/{id}/logs': {
      get: {
        ...op(
          'A kiosk’s uploaded logs: gzip-compressed JSON lines (audited)',
          null,
          [401, 403, 404],
          {
            requestParams: id,
          },
        ),
        responses: {
          '200': {
            description: 'The bundle',
            content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...problems(401, 403, 404),
        },
      },
    },
    '/ops/v1/parcels': {
      get: op(
        'Find parcels by tracking number, merchant reference, station code, the last digits of a phone, or station + door; with their history. Says what matched',
        ParcelSearchSchema,
        [401, 403, 404, 422],
        { requestParams: { query: ParcelSearchQuerySchema } },
      ),
    },
    '/ops/v1/alerts': {
      get: op(
        'Alerts: active ones most severe then oldest first, or by status',
        AlertListSchema,
        [401, 403, 422],
        {
          requestParams: { query: AlertListQuerySchema },
        },
      ),
    },
    '/ops/v1/alerts/stream': {
      get: {
        ...ops,
        summary:
          'Server-sent events: `event: alert`, data an AlertStreamEvent, for every change of an alert the operator may see, from any server instance',
        responses: {
          '200': {
            description: 'text/event-stream',
            content: { 'text/event-stream': { schema: AlertStreamEventSchema } },
          },
          ...problems(401, 403),
        },
      },
    },
    '/ops/v1/alerts/{id}/acknowledge': {
      post: op('Acknowledge an open alert, with a note', AlertSchema, [401, 403, 404, 409], {
        requestParams: id,
        requestBody: body(AlertActionRequestSchema, false),
      }),
    },
    '/ops/v1/alerts/{id}/resolve': {
      post: op('Resolve an alert, with a note', AlertSchema, [401, 403, 404, 409], {
        requestParams: id,
        requestBody: body(AlertActionRequestSchema, false),
      }),
    },
    '/ops/v1/terminals': {
      get: op(
        'Terminals, filtered by status and station',
        TerminalListSchema,
        [401, 403, 404, 422],
        {
          requestParams: { query: TerminalListQuerySchema },
        },
      ),
      post: op(
        'A new terminal, its one-time enrolment code (24 h) and its device token, shown once',
        TerminalCreatedSchema,
        [401, 403, 404, 422],
        {
          requestBody: body(CreateTerminalRequestSchema),
        },
        '201',
      ),
    },
    '/ops/v1/kiosk-rollout': {
      get: op(
        'The kiosk release rolled out, its rings, and what every kiosk runs and last reported',
        RolloutSchema,
        [401, 403, 404],
      ),
      put: op(
        'Roll a release out: pilot stations, then a stable share of every kiosk (100: all); replaces the rollout under way',
        RolloutSchema,
        [401, 403, 404, 422],
        { requestBody: body(RolloutRequestSchema) },
      ),
    },
    '/ops/v1/terminals/{id}/enrolment-code': {
      post: op(
        'A new one-time enrolment code for a terminal; its earlier codes stop working',
        EnrolmentCodeIssuedSchema,
        [401, 403, 404, 409],
        { requestParams: id },
        '201',
      ),
    },
    ...Object.fromEntries(
      (['disable', 'enable', 'revoke'] as const).map((change) => [
        `/ops/v1/terminals/{id}/${change}`,
        {
          post: op(
            change === 'revoke'
              ? 'Revoke a terminal: its token never works again'
              : change === 'disable'
                ? 'Disable a terminal (refused at once, kept)'
                : 'Enable a disabled terminal',
            TerminalViewSchema,
            [401, 403, 404, 409],
            { requestParams: id, requestBody: body(ReasonRequestSchema, false) },
          ),
        },
      ]),
    ),
    '/ops/v1/couriers': {
      get: op('Couriers by number', CourierListSchema, [401, 403, 422], {
        requestParams: {
          query: z.object({
            cursor: text().optional(),
            limit: z.number().int().optional(),
            q: text().optional(),
            active: z.enum(['true', 'false']).optional(),
          }),
        },
      }),
      post: op(
        'A new courier',
        CourierSchema,
        [401, 403, 409, 422],
        { requestBody: body(CreateCourierRequestSchema) },
        '201',
      ),
    },
    '/ops/v1/couriers/{number}/deactivate': {
      post: op('Deactivate a courier', CourierSchema, [401, 403, 404], {
        requestParams: number,
        requestBody: body(ReasonRequestSchema, false),
      }),
    },
    '/ops/v1/organizations': {
      get: op('Organizations', OrganizationListSchema, [401, 403, 422], {
        requestParams: {
          query: z.object({ cursor: text().optional(), limit: z.number().int().optional() }),
        },
      }),
      post: op(
        'A new organization and its first API key, shown once (admin)',
        OrganizationCreatedSchema,
        [401, 403, 422],
        {
          requestBody: body(CreateOrganizationRequestSchema),
        },
        '201',
      ),
    },
    '/ops/v1/organizations/{id}/keys': {
      get: op(
        'An organization’s API keys (never the keys themselves) (admin)',
        ApiKeyListSchema,
        [401, 403, 404],
        { requestParams: id },
      ),
      post: op(
        'Another API key, shown once (admin)',
        ApiKeyIssuedSchema,
        [401, 403, 404],
        { requestParams: id },
        '201',
      ),
    },
    '/ops/v1/organizations/{id}/keys/rotate': {
      post: op(
        'A new API key; every other key is revoked at once (admin)',
        ApiKeyIssuedSchema,
        [401, 403, 404],
        { requestParams: id },
        '201',
      ),
    },
    '/ops/v1/organizations/{id}/keys/{keyId}/revoke': {
      post: op('Revoke one API key (admin)', ApiKeySchema, [401, 403, 404], {
        requestParams: { path: z.object({ id: text(), keyId: text() }) },
        requestBody: body(ReasonRequestSchema, false),
      }),
    },
    '/ops/v1/audit': {
      get: op(
        'The audit log, newest first; filtered by actor, action (or group), time',
        AuditListSchema,
        [401, 403, 422],
        {
          requestParams: { query: AuditQuerySchema },
        },
      ),
    },
    '/ops/v1/audit/export': {
      get: {
        ...ops,
        summary: 'The filtered audit log as CSV (the export is itself audited)',
        requestParams: { query: AuditQuerySchema.omit({ cursor: true, limit: true }) },
        responses: {
          '200': { description: 'CSV', content: { 'text/csv': { schema: text() } } },
          ...problems(401, 403, 422),
        },
      },
    },
  };
}
