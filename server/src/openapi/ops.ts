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
import { ids } from './examples';
import { opsExamples, opsIds, type OpsOperationId } from './opsExamples';
import { body, json, problems } from './parts';

const session = { tags: ['operations'], security: [{ operatorSession: [] }] };

/** What an ops operation answers on success: a JSON schema (with its example) or nothing. */
interface Success {
  status?: '200' | '201' | '204';
  schema?: z.ZodType;
}

interface OpsOperation {
  summary: string;
  /** The success answer; `{ status: '204' }` for one without a body. */
  answer: Success;
  /** The problem statuses it names (401 and the body's 400, 408 and 413 come with it). */
  errors: number[];
  requestParams?: ZodOpenApiOperationObject['requestParams'];
  /** The request body's schema; its example is `opsExamples[id].request`. */
  requestBody?: z.ZodType;
  /** A body that may be left out (a reason or a note). */
  bodyOptional?: true;
  /** Without a session (setting up, signing in). */
  public?: true;
}

/**
 * One operation of the operations interface: `id` is its operationId and names its
 * examples in opsExamples.ts (a missing one is a type error).
 */
function op(id: OpsOperationId, o: OpsOperation): ZodOpenApiOperationObject {
  const example = opsExamples[id] as {
    request?: unknown;
    response?: unknown;
    problems?: Record<number, unknown>;
  };
  const status = o.answer.status ?? '200';
  const problemAnswers = problems('ops', o.errors, o.requestBody !== undefined);
  for (const [at, value] of Object.entries(example.problems ?? {})) {
    const answer = (problemAnswers as Record<string, { content: Record<string, object> }>)[at]!;
    const media = answer.content['application/problem+json']!;
    answer.content['application/problem+json'] = { ...media, example: value };
  }
  return {
    ...session,
    operationId: id,
    summary: o.summary,
    ...(o.public ? { security: [] } : {}),
    ...(o.requestParams ? { requestParams: o.requestParams } : {}),
    ...(o.requestBody
      ? { requestBody: body(o.requestBody, example.request, !o.bodyOptional) }
      : {}),
    responses: {
      [status]: o.answer.schema
        ? json(o.answer.schema, status === '201' ? 'Created' : 'OK', example.response)
        : { description: 'Done' },
      ...problemAnswers,
    },
  };
}

/**
 * A command to a kiosk over the live link answers 202 with the command as it stands when
 * the kiosk has not answered within `wait_seconds`; poll GET /ops/v1/link/commands/{id}.
 */
function accepted(o: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const ok = o.responses['200'] as { content: { 'application/json': { example: unknown } } };
  return {
    ...o,
    responses: {
      ...o.responses,
      '202': json(
        LinkCommandViewSchema,
        'Accepted: no outcome within wait_seconds; poll the command (Location)',
        {
          ...(ok.content['application/json'].example as object),
          status: 'sent',
          outcome: null,
          outcome_at: null,
        },
      ),
    },
  };
}

// Path parameters, each with an example.
const code = { path: z.object({ code: text().meta({ example: opsIds.code }) }) };
const alertId = { path: z.object({ id: text().meta({ example: opsIds.alert }) }) };
const terminalId = { path: z.object({ id: text().meta({ example: opsIds.terminal }) }) };
const organizationId = { path: z.object({ id: text().meta({ example: opsIds.organization }) }) };
const email = { path: z.object({ email: text().meta({ example: opsIds.email }) }) };
const number = { path: z.object({ number: text().meta({ example: opsIds.courier }) }) };
const commandId = { path: z.object({ id: text().meta({ example: opsIds.command }) }) };

/**
 * The operations interface (/ops/v1). Unsafe methods need `Origin` of the console (CSRF);
 * 401 `unauthorized` without a live session, `second_factor_required` half signed in; 403
 * `forbidden` for a role or station outside the operator's scope (and audited). Every
 * operation has an operationId (`ops…`) and examples (opsExamples.ts).
 */
export function opsPaths(): ZodOpenApiPathsObject {
  return {
    '/ops/v1/setup': {
      post: op('opsCompleteSetup', {
        summary: 'Set a password with the one-time set-up token',
        answer: { status: '204' },
        errors: [401, 403, 422, 429],
        requestBody: SetupRequestSchema,
        public: true,
      }),
    },
    '/ops/v1/session': {
      post: op('opsSignIn', {
        summary:
          'Sign in with e-mail and password; sets the session cookie. Unknown e-mail and wrong password answer alike',
        answer: { schema: SessionAnswerSchema },
        errors: [400, 401, 403, 429],
        requestBody: LoginRequestSchema,
        public: true,
      }),
      get: op('opsGetSession', {
        summary: 'The signed-in operator and the session’s expiry',
        answer: { schema: CurrentSessionSchema },
        errors: [401],
      }),
      delete: op('opsSignOut', {
        summary: 'Sign out (this session)',
        answer: { status: '204' },
        errors: [401, 403],
      }),
    },
    '/ops/v1/sessions': {
      delete: op('opsSignOutEverywhere', {
        summary: 'Sign out everywhere (every session of this operator)',
        answer: { status: '204' },
        errors: [401, 403],
      }),
    },
    '/ops/v1/session/second-factor': {
      post: op('opsEnterSecondFactor', {
        summary:
          'Finish signing in with the authenticator’s code or a recovery code (the first time: confirms the enrolment and answers the recovery codes, once)',
        answer: { schema: SessionAnswerSchema },
        errors: [400, 401, 403, 409, 429],
        requestBody: SecondFactorRequestSchema,
      }),
    },
    '/ops/v1/session/step-up': {
      post: op('opsStepUp', {
        summary:
          'Enter the code again: physical actions (remote open) need one from the last 5 minutes',
        answer: { status: '204' },
        errors: [401, 403, 429],
        requestBody: StepUpRequestSchema,
      }),
    },
    '/ops/v1/operators': {
      get: op('opsListOperators', {
        summary: 'Every operator (admin)',
        answer: { schema: OperatorListSchema },
        errors: [401, 403],
      }),
      post: op('opsCreateOperator', {
        summary: 'A new operator and their one-time set-up link (admin)',
        answer: { status: '201', schema: OperatorSetupIssuedSchema },
        errors: [401, 403, 409, 422],
        requestBody: CreateOperatorRequestSchema,
      }),
    },
    '/ops/v1/operators/{email}/deactivate': {
      post: op('opsDeactivateOperator', {
        summary: 'Deactivate an operator; their sessions end (admin)',
        answer: { schema: OperatorSchema },
        errors: [401, 403, 404],
        requestParams: email,
      }),
    },
    '/ops/v1/operators/{email}/reset': {
      post: op('opsResetOperator', {
        summary: 'Clear password and second factor, end sessions, issue a new set-up link (admin)',
        answer: { schema: OperatorSetupIssuedSchema },
        errors: [401, 403, 404],
        requestParams: email,
      }),
    },
    '/ops/v1/overview': {
      get: op('opsGetOverview', {
        summary:
          'The first screen’s counts: alerts by severity, stations offline, doors out of service, parcels overdue',
        answer: { schema: FleetOverviewSchema },
        errors: [401, 403],
      }),
    },
    '/ops/v1/stations': {
      get: op('opsListStations', {
        summary:
          'The fleet: stations with door, parcel, terminal and alert counts; filtered, sorted, by cursor',
        answer: { schema: StationListSchema },
        errors: [401, 403, 422],
        requestParams: {
          query: StationListQuerySchema.extend({
            sort: StationListQuerySchema.shape.sort.meta({ example: 'alerts_first' }),
          }),
        },
      }),
    },
    '/ops/v1/stations/{code}': {
      get: op('opsGetStation', {
        summary: 'One station: each door and what it holds, terminals, active alerts',
        answer: { schema: StationDetailSchema },
        errors: [401, 403, 404],
        requestParams: code,
      }),
    },
    '/ops/v1/stations/{code}/overdue': {
      get: op('opsListOverdue', {
        summary: 'Deliveries past free storage, in ageing groups',
        answer: { schema: OverdueListSchema },
        errors: [401, 403, 404],
        requestParams: code,
      }),
    },
    '/ops/v1/stations/{code}/doors/{position}/service': {
      post: op('opsSetDoorService', {
        summary: 'Take a door out of service or back in, with the reason (audited)',
        answer: { schema: DoorServiceAnswerSchema },
        errors: [401, 403, 404, 422],
        requestParams: {
          path: z.object({
            code: text().meta({ example: opsIds.code }),
            position: z.number().int().meta({ example: opsIds.position }),
          }),
        },
        requestBody: DoorServiceRequestSchema,
      }),
    },
    '/ops/v1/stations/{code}/doors/{position}/open': {
      post: accepted(
        op('opsOpenDoorRemotely', {
          summary:
            'Open one door remotely over the live link (reason required; the second factor entered within 5 minutes, else 403 step_up_required). 200 with the outcome (opened, did_not_open, unknown, already_open, expired), or 202 with Location to poll after wait_seconds. Past 3 opens a minute per operator or 10 across the network: 429 approval_required, Location the approval a second administrator gives',
          answer: { schema: LinkCommandViewSchema },
          errors: [401, 403, 404, 422, 429],
          requestParams: {
            path: z.object({
              code: text().meta({ example: opsIds.code }),
              position: z.number().int().meta({ example: opsIds.position }),
            }),
          },
          requestBody: RemoteOpenRequestSchema,
        }),
      ),
    },
    '/ops/v1/link/approvals/{id}/approve': {
      post: accepted(
        op('opsApproveRemoteOpen', {
          summary:
            'A second administrator approves a remote open held back by the limits (not the one who asked; within 5 minutes); answers as the open does',
          answer: { schema: LinkCommandViewSchema },
          errors: [401, 403, 404, 409, 422],
          requestParams: commandId,
          requestBody: LinkCommandRequestSchema.pick({ wait_seconds: true }),
          bodyOptional: true,
        }),
      ),
    },
    '/ops/v1/stations/{code}/link/refresh-config': {
      post: accepted(
        op('opsRefreshKioskConfig', {
          summary: 'The kiosk fetches its configuration now (the live link)',
          answer: { schema: LinkCommandViewSchema },
          errors: [401, 403, 404, 422],
          requestParams: code,
          requestBody: LinkCommandRequestSchema,
          bodyOptional: true,
        }),
      ),
    },
    '/ops/v1/stations/{code}/link/reload-screen': {
      post: accepted(
        op('opsReloadKioskScreen', {
          summary: 'The kiosk reloads its screen (the live link)',
          answer: { schema: LinkCommandViewSchema },
          errors: [401, 403, 404, 422],
          requestParams: code,
          requestBody: LinkCommandRequestSchema,
          bodyOptional: true,
        }),
      ),
    },
    '/ops/v1/stations/{code}/link/upload-logs': {
      post: accepted(
        op('opsUploadKioskLogs', {
          summary:
            'The kiosk uploads its logs of the last `minutes` (default 30); fetch them with GET /ops/v1/link/commands/{id}/logs',
          answer: { schema: LinkCommandViewSchema },
          errors: [401, 403, 404, 422],
          requestParams: code,
          requestBody: LinkCommandRequestSchema,
          bodyOptional: true,
        }),
      ),
    },
    '/ops/v1/link/commands/{id}': {
      get: op('opsGetLinkCommand', {
        summary: 'A command to a kiosk and what came of it',
        answer: { schema: LinkCommandViewSchema },
        errors: [401, 403, 404],
        requestParams: commandId,
      }),
    },
    '/ops/v1/link/commands/{id}/logs': {
      get: {
        ...op('opsGetLinkLogs', {
          summary: 'A kiosk’s uploaded logs: gzip-compressed JSON lines (audited)',
          answer: {},
          errors: [401, 403, 404],
          requestParams: commandId,
        }),
        responses: {
          '200': {
            description: 'The bundle',
            content: { 'application/gzip': { schema: z.string().meta({ format: 'binary' }) } },
          },
          ...problems('ops', [401, 403, 404], false),
        },
      },
    },
    '/ops/v1/parcels': {
      get: op('opsSearchParcels', {
        summary:
          'Find parcels by tracking number, merchant reference, station code, the last digits of a phone, or station + door; with their history. Says what matched',
        answer: { schema: ParcelSearchSchema },
        errors: [401, 403, 404, 422],
        requestParams: {
          query: ParcelSearchQuerySchema.extend({
            q: ParcelSearchQuerySchema.shape.q.meta({ example: ids.tracking }),
          }),
        },
      }),
    },
    '/ops/v1/alerts': {
      get: op('opsListAlerts', {
        summary: 'Alerts: active ones most severe then oldest first, or by status',
        answer: { schema: AlertListSchema },
        errors: [401, 403, 422],
        requestParams: {
          query: AlertListQuerySchema.extend({
            status: AlertListQuerySchema.shape.status.meta({ example: 'active' }),
          }),
        },
      }),
    },
    '/ops/v1/alerts/stream': {
      get: {
        ...session,
        operationId: 'opsStreamAlerts' satisfies OpsOperationId,
        summary:
          'Server-sent events: `event: alert`, data an AlertStreamEvent, for every change of an alert the operator may see, from any server instance',
        responses: {
          '200': {
            description: 'text/event-stream',
            content: {
              'text/event-stream': {
                schema: AlertStreamEventSchema,
                example: opsExamples.opsStreamAlerts.response,
              },
            },
          },
          ...problems('ops', [401, 403], false),
        },
      },
    },
    '/ops/v1/alerts/{id}/acknowledge': {
      post: op('opsAcknowledgeAlert', {
        summary: 'Acknowledge an open alert, with a note',
        answer: { schema: AlertSchema },
        errors: [401, 403, 404, 409, 422],
        requestParams: alertId,
        requestBody: AlertActionRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/alerts/{id}/resolve': {
      post: op('opsResolveAlert', {
        summary: 'Resolve an alert, with a note',
        answer: { schema: AlertSchema },
        errors: [401, 403, 404, 409, 422],
        requestParams: alertId,
        requestBody: AlertActionRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/terminals': {
      get: op('opsListTerminals', {
        summary: 'Terminals, filtered by status and station',
        answer: { schema: TerminalListSchema },
        errors: [401, 403, 404, 422],
        requestParams: {
          query: TerminalListQuerySchema.extend({
            status: TerminalListQuerySchema.shape.status.meta({ example: 'online' }),
          }),
        },
      }),
      post: op('opsCreateTerminal', {
        summary:
          'A new terminal, its one-time enrolment code (24 h) and its device token, shown once',
        answer: { status: '201', schema: TerminalCreatedSchema },
        errors: [401, 403, 404, 422],
        requestBody: CreateTerminalRequestSchema,
      }),
    },
    '/ops/v1/kiosk-rollout': {
      get: op('opsGetKioskRollout', {
        summary:
          'The kiosk release rolled out, its rings, and what every kiosk runs and last reported',
        answer: { schema: RolloutSchema },
        errors: [401, 403, 404],
      }),
      put: op('opsSetKioskRollout', {
        summary:
          'Roll a release out: pilot stations, then a stable share of every kiosk (100: all); replaces the rollout under way',
        answer: { schema: RolloutSchema },
        errors: [401, 403, 404, 422],
        requestBody: RolloutRequestSchema,
      }),
    },
    '/ops/v1/terminals/{id}/enrolment-code': {
      post: op('opsIssueEnrolmentCode', {
        summary: 'A new one-time enrolment code for a terminal; its earlier codes stop working',
        answer: { status: '201', schema: EnrolmentCodeIssuedSchema },
        errors: [401, 403, 404, 409],
        requestParams: terminalId,
      }),
    },
    '/ops/v1/terminals/{id}/disable': {
      post: op('opsDisableTerminal', {
        summary: 'Disable a terminal (refused at once, kept)',
        answer: { schema: TerminalViewSchema },
        errors: [401, 403, 404, 409, 422],
        requestParams: terminalId,
        requestBody: ReasonRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/terminals/{id}/enable': {
      post: op('opsEnableTerminal', {
        summary: 'Enable a disabled terminal',
        answer: { schema: TerminalViewSchema },
        errors: [401, 403, 404, 409, 422],
        requestParams: terminalId,
        requestBody: ReasonRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/terminals/{id}/revoke': {
      post: op('opsRevokeTerminal', {
        summary: 'Revoke a terminal: its token never works again',
        answer: { schema: TerminalViewSchema },
        errors: [401, 403, 404, 409, 422],
        requestParams: terminalId,
        requestBody: ReasonRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/couriers': {
      get: op('opsListCouriers', {
        summary: 'Couriers by number',
        answer: { schema: CourierListSchema },
        errors: [401, 403, 422],
        requestParams: {
          query: z.object({
            cursor: text().optional(),
            limit: z.number().int().optional().meta({ example: 50 }),
            q: text().optional(),
            active: z.enum(['true', 'false']).optional(),
          }),
        },
      }),
      post: op('opsCreateCourier', {
        summary: 'A new courier',
        answer: { status: '201', schema: CourierSchema },
        errors: [401, 403, 409, 422],
        requestBody: CreateCourierRequestSchema,
      }),
    },
    '/ops/v1/couriers/{number}/deactivate': {
      post: op('opsDeactivateCourier', {
        summary: 'Deactivate a courier',
        answer: { schema: CourierSchema },
        errors: [401, 403, 404, 422],
        requestParams: number,
        requestBody: ReasonRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/organizations': {
      get: op('opsListOrganizations', {
        summary: 'Organizations',
        answer: { schema: OrganizationListSchema },
        errors: [401, 403, 422],
        requestParams: {
          query: z.object({
            cursor: text().optional(),
            limit: z.number().int().optional().meta({ example: 50 }),
          }),
        },
      }),
      post: op('opsCreateOrganization', {
        summary: 'A new organization and its first API key, shown once (admin)',
        answer: { status: '201', schema: OrganizationCreatedSchema },
        errors: [401, 403, 422],
        requestBody: CreateOrganizationRequestSchema,
      }),
    },
    '/ops/v1/organizations/{id}/keys': {
      get: op('opsListApiKeys', {
        summary: 'An organization’s API keys (never the keys themselves) (admin)',
        answer: { schema: ApiKeyListSchema },
        errors: [401, 403, 404],
        requestParams: organizationId,
      }),
      post: op('opsIssueApiKey', {
        summary: 'Another API key, shown once (admin)',
        answer: { status: '201', schema: ApiKeyIssuedSchema },
        errors: [401, 403, 404],
        requestParams: organizationId,
      }),
    },
    '/ops/v1/organizations/{id}/keys/rotate': {
      post: op('opsRotateApiKeys', {
        summary: 'A new API key; every other key is revoked at once (admin)',
        answer: { status: '201', schema: ApiKeyIssuedSchema },
        errors: [401, 403, 404],
        requestParams: organizationId,
      }),
    },
    '/ops/v1/organizations/{id}/keys/{keyId}/revoke': {
      post: op('opsRevokeApiKey', {
        summary: 'Revoke one API key (admin)',
        answer: { schema: ApiKeySchema },
        errors: [401, 403, 404, 422],
        requestParams: {
          path: z.object({
            id: text().meta({ example: opsIds.organization }),
            keyId: text().meta({ example: opsIds.key }),
          }),
        },
        requestBody: ReasonRequestSchema,
        bodyOptional: true,
      }),
    },
    '/ops/v1/audit': {
      get: op('opsListAudit', {
        summary: 'The audit log, newest first; filtered by actor, action (or group), time',
        answer: { schema: AuditListSchema },
        errors: [401, 403, 422],
        requestParams: {
          query: AuditQuerySchema.extend({
            action: AuditQuerySchema.shape.action.meta({ example: 'door.service' }),
          }),
        },
      }),
    },
    '/ops/v1/audit/export': {
      get: {
        ...session,
        operationId: 'opsExportAudit' satisfies OpsOperationId,
        summary: 'The filtered audit log as CSV (the export is itself audited)',
        requestParams: {
          query: AuditQuerySchema.omit({ cursor: true, limit: true }).extend({
            action: AuditQuerySchema.shape.action.meta({ example: 'door.service' }),
          }),
        },
        responses: {
          '200': {
            description: 'CSV',
            content: {
              'text/csv': { schema: text(), example: opsExamples.opsExportAudit.response },
            },
          },
          ...problems('ops', [401, 403, 422], false),
        },
      },
    },
  };
}
