import { z } from 'zod';
import { SHIPMENT_STATUSES, text } from './common';
import { EnrolmentCodeSchema } from './field';

// The operations interface (/ops/v1): what the operator console and operations' own
// tools call, signed in as an operator (session cookie). Field names are snake_case, as
// in the merchant interface. A pickup code, or anything that reveals one, is in none of
// these shapes.

export const OPERATOR_ROLES = ['admin', 'operations', 'support', 'technician'] as const;
export const OperatorRoleSchema = z.enum(OPERATOR_ROLES);
export type OperatorRole = z.infer<typeof OperatorRoleSchema>;

const time = z.iso.datetime({ offset: true });
const page = <T extends z.ZodType>(item: T) =>
  z.object({
    items: z.array(item),
    /** Pass as `cursor` for the next page; null on the last. */
    next_cursor: text().nullable(),
  });

// Sessions ------------------------------------------------------------------------------

export const LoginRequestSchema = z
  .strictObject({ email: text().trim().min(1).max(254), password: text().min(1).max(256) })
  .meta({ id: 'OpsLoginRequest' });
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const SecondFactorRequestSchema = z
  .strictObject({
    /** The 6 digits the authenticator app shows. */
    code: text().trim().max(20).optional(),
    /** One of the recovery codes, instead of `code`; each works once. */
    recovery_code: text().trim().max(40).optional(),
  })
  .refine((v) => (v.code === undefined) !== (v.recovery_code === undefined), {
    message: 'send exactly one of code and recovery_code',
    params: { code: 'one_of' },
  })
  .meta({ id: 'OpsSecondFactorRequest' });
export type SecondFactorRequest = z.infer<typeof SecondFactorRequestSchema>;

export const StepUpRequestSchema = z
  .strictObject({ code: text().trim().max(20) })
  .meta({ id: 'OpsStepUpRequest' });

export const SetupRequestSchema = z
  .strictObject({
    /** The set-up token of the link `operator create` printed. */
    token: text().min(1).max(200),
    password: text()
      .min(12, 'must be at least 12 characters')
      .max(256, 'must be at most 256 characters'),
  })
  .meta({ id: 'OpsSetupRequest' });

export const OperatorSchema = z
  .object({
    id: z.guid(),
    email: text(),
    role: OperatorRoleSchema,
    /** Technicians: the station codes they may act on; empty for other roles. */
    stations: z.array(text()),
    /** Whether the password was set with the set-up link. */
    set_up: z.boolean(),
    second_factor_enrolled: z.boolean(),
    active: z.boolean(),
    created_at: time,
    created_by: text(),
  })
  .meta({ id: 'Operator' });
export type Operator = z.infer<typeof OperatorSchema>;

export const SessionAnswerSchema = z
  .object({
    /**
     * `complete`: signed in. `second_factor`: send the authenticator's code to
     * /session/second-factor. `second_factor_setup`: show `otpauth_uri` as a QR code, then
     * send the first code; the answer carries the recovery codes, once.
     */
    stage: z.enum(['complete', 'second_factor', 'second_factor_setup']),
    otpauth_uri: text().optional(),
    recovery_codes: z.array(text()).optional(),
    operator: OperatorSchema.optional(),
  })
  .meta({ id: 'OpsSessionAnswer' });
export type SessionAnswer = z.infer<typeof SessionAnswerSchema>;

export const CurrentSessionSchema = z
  .object({
    operator: OperatorSchema,
    session: z.object({
      created_at: time,
      /** When the session ends at the latest, and when it ends if left idle. */
      expires_at: time,
      idle_expires_at: time,
      second_factor_at: time.nullable(),
    }),
  })
  .meta({ id: 'OpsCurrentSession' });

export const CreateOperatorRequestSchema = z
  .strictObject({
    email: z.email({ error: 'must be an e-mail address' }).max(254),
    role: OperatorRoleSchema,
    /** Station codes; technicians only, and they need at least one. */
    stations: z.array(text().trim().min(1).max(64)).max(1000).optional(),
  })
  .meta({ id: 'CreateOperatorRequest' });
export type CreateOperatorRequest = z.infer<typeof CreateOperatorRequestSchema>;

export const OperatorSetupIssuedSchema = z
  .object({
    operator: OperatorSchema,
    /** Shown once: the operator sets a password with it (and then a second factor). */
    setup_token: text(),
    setup_link: text(),
    setup_expires_at: time,
  })
  .meta({ id: 'OperatorSetupIssued' });

export const OperatorListSchema = page(OperatorSchema).meta({ id: 'OperatorList' });

// Fleet ---------------------------------------------------------------------------------

const SizeCountsSchema = z.object({
  S: z.number().int(),
  M: z.number().int(),
  L: z.number().int(),
  XL: z.number().int(),
  /** Doors of unknown size. */
  unknown: z.number().int(),
});

export const StationSummarySchema = z
  .object({
    id: z.guid(),
    code: text(),
    name: text(),
    doors: z.object({
      free: SizeCountsSchema,
      occupied: SizeCountsSchema,
      out_of_service: SizeCountsSchema,
    }),
    /** Deliveries past their free storage, and of those, past their expiry. */
    parcels_overdue: z.number().int(),
    parcels_expired: z.number().int(),
    terminals: z.object({
      online: z.number().int(),
      offline: z.number().int(),
      disabled: z.number().int(),
    }),
    open_alerts: z.number().int(),
  })
  .meta({ id: 'StationSummary' });
export type StationSummary = z.infer<typeof StationSummarySchema>;

export const StationListSchema = page(StationSummarySchema).meta({ id: 'StationList' });

/**
 * `fullest_first`: the largest share of doors holding something first; `overdue_first`:
 * the most deliveries past their free storage first (a take-out round's order).
 */
export const STATION_SORTS = [
  'code',
  'name',
  'offline_first',
  'alerts_first',
  'fullest_first',
  'overdue_first',
] as const;
export const StationListQuerySchema = z.strictObject({
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
  /** Only stations with an offline terminal / with an open alert. */
  offline: z.enum(['true', 'false']).optional(),
  has_alerts: z.enum(['true', 'false']).optional(),
  /** A code prefix or part of the name, case-insensitive. */
  q: text().trim().max(100).optional(),
  sort: z.enum(STATION_SORTS).optional(),
});

export const FleetOverviewSchema = z
  .object({
    alerts_open: z.object({
      critical: z.number().int(),
      warning: z.number().int(),
      info: z.number().int(),
    }),
    stations: z.number().int(),
    stations_offline: z.number().int(),
    doors_out_of_service: z.number().int(),
    parcels_overdue: z.number().int(),
    /** Remote actions waiting for a second person's approval (the link's; 0 until then). */
    remote_actions_awaiting_approval: z.number().int(),
  })
  .meta({ id: 'FleetOverview' });

export const DOOR_STATES = ['free', 'occupied', 'out_of_service'] as const;

export const DoorDetailSchema = z
  .object({
    position: z.number().int(),
    code: text().nullable(),
    size: z.enum(['S', 'M', 'L', 'XL']).nullable(),
    /** Anything inside makes a door `occupied`, out of service or not. */
    state: z.enum(DOOR_STATES),
    holds: z
      .object({
        kind: z.enum(['delivery', 'return_hold', 'return']),
        shipment_id: z.guid(),
        tracking_number: text(),
        since: time,
        /** Deliveries: when free storage ended (null: not yet) and when it expires. */
        overdue_since: time.nullable(),
        expires_at: time.nullable(),
      })
      .nullable(),
    out_of_service: z.object({ reason: text(), since: time, by: text() }).nullable(),
    /**
     * The door's last sensor reading over the live link (pushed on every change); nulls
     * until the link reports. `unknown`: its board did not answer.
     */
    sensor: z.object({
      state: z.enum(['open', 'closed', 'unknown']).nullable(),
      item_present: z.boolean().nullable(),
      /** A door session (a person at the screen, or a remote open) uses the door. */
      in_session: z.boolean().nullable(),
      /** Since when it stands open (this opening); null while shut. */
      open_since: time.nullable(),
      seen_at: time.nullable(),
    }),
  })
  .meta({ id: 'DoorDetail' });

export const TerminalViewSchema = z
  .object({
    id: z.guid(),
    station_code: text().nullable(),
    status: z.enum(['online', 'offline', 'disabled']),
    revoked: z.boolean(),
    last_heartbeat_at: time.nullable(),
    app_version: text().nullable(),
    /** The live link (issue 23, link side): connected or not, since when. */
    link: z.object({ connected: z.boolean(), since: time.nullable() }),
    created_at: time,
  })
  .meta({ id: 'TerminalView' });
export type TerminalView = z.infer<typeof TerminalViewSchema>;

export const ALERT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const ALERT_SEVERITIES = ['critical', 'warning', 'info'] as const;

export const AlertSchema = z
  .object({
    id: text(),
    kind: text(),
    severity: z.enum(ALERT_SEVERITIES),
    status: z.enum(ALERT_STATUSES),
    message: text(),
    station_id: z.guid().nullable(),
    station_code: text().nullable(),
    terminal_id: z.guid().nullable(),
    door: z.number().int().nullable(),
    /** How many times the condition was reported while this alert was open. */
    occurrences: z.number().int(),
    created_at: time,
    last_seen_at: time,
    acknowledged: z.object({ at: time, by: text(), note: text().nullable() }).nullable(),
    resolved: z
      .object({
        at: time,
        by: text(),
        note: text().nullable(),
        /** `cleared`: the condition went away by itself. */
        resolution: z.enum(['operator', 'cleared', 'superseded']),
      })
      .nullable(),
  })
  .meta({ id: 'Alert' });
export type Alert = z.infer<typeof AlertSchema>;

export const AlertListSchema = page(AlertSchema).meta({ id: 'AlertList' });

export const AlertListQuerySchema = z.strictObject({
  /** `active` (default): open and acknowledged. */
  status: z.enum(['active', ...ALERT_STATUSES, 'all']).optional(),
  station: text().max(64).optional(),
  kind: text().max(64).optional(),
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const AlertActionRequestSchema = z
  .strictObject({ note: text().trim().max(1000).optional() })
  .meta({ id: 'AlertActionRequest' });

/** What the alert stream sends: one per change, as `event: alert`. */
export const AlertStreamEventSchema = z
  .object({
    event: z.enum(['opened', 'occurred', 'acknowledged', 'resolved']),
    alert: AlertSchema,
  })
  .meta({ id: 'AlertStreamEvent' });

export const StationDetailSchema = z
  .object({
    id: z.guid(),
    code: text(),
    name: text(),
    cabinet_sn: text(),
    support_phone: text(),
    free_storage_hours: z.number().int(),
    max_storage_hours: z.number().int(),
    doors: z.array(DoorDetailSchema),
    terminals: z.array(TerminalViewSchema),
    alerts: z.array(AlertSchema),
  })
  .meta({ id: 'StationDetail' });

export const DoorServiceRequestSchema = z
  .strictObject({
    in_service: z.boolean(),
    /** Required: kept with the door and in the audit log. */
    reason: text().trim().min(3, 'must say why (at least 3 characters)').max(500),
  })
  .meta({ id: 'DoorServiceRequest' });

/** How long a link request waits for the kiosk's outcome before answering 202. */
const WaitSeconds = z.number().int().min(0).max(30).optional();

export const RemoteOpenRequestSchema = z
  .strictObject({
    /** Required: kept with the command and in the audit log. */
    reason: text().trim().min(3, 'must say why (at least 3 characters)').max(500),
    /** Wait up to this long for the door's outcome (default 10); then 202 and poll. */
    wait_seconds: WaitSeconds,
  })
  .meta({ id: 'RemoteOpenRequest' });

export const LinkCommandRequestSchema = z
  .strictObject({
    reason: text().trim().max(500).optional(),
    /** upload-logs only: the last N minutes (default 30). */
    minutes: z
      .number()
      .int()
      .min(1)
      .max(24 * 60)
      .optional(),
    wait_seconds: WaitSeconds,
  })
  .meta({ id: 'LinkCommandRequest' });

/** A command to a kiosk over the live link, as issued and as it came out. */
export const LinkCommandViewSchema = z
  .object({
    id: z.guid(),
    station_code: text(),
    door: z.number().int().nullable(),
    kind: z.enum(['open_door', 'door_service', 'refresh_config', 'upload_logs', 'reload_screen']),
    args: z.record(text(), z.unknown()),
    issued_by: text(),
    reason: text().nullable(),
    issued_at: time,
    expires_at: time,
    /** pending → sent → done, or expired (never delivered in its 60 s, or arrived late). */
    status: z.enum(['pending', 'sent', 'done', 'expired']),
    sent_at: time.nullable(),
    /** A remote open: opened, did_not_open, unknown, already_open; else done or failed. */
    outcome: text().nullable(),
    outcome_detail: z.record(text(), z.unknown()).nullable(),
    outcome_at: time.nullable(),
  })
  .meta({ id: 'LinkCommand' });
export type LinkCommandView = z.infer<typeof LinkCommandViewSchema>;

export const DoorServiceAnswerSchema = z
  .object({ station_code: text(), door: DoorDetailSchema })
  .meta({ id: 'DoorServiceAnswer' });

// Parcels -------------------------------------------------------------------------------

export const PARCEL_MATCHES = [
  'tracking_number',
  'merchant_reference',
  'phone',
  'door',
  'station',
] as const;

export const ParcelSchema = z
  .object({
    id: z.guid(),
    tracking_number: text(),
    merchant_order_reference: text().nullable(),
    organization: z.object({ id: z.guid(), name: text() }),
    status: z.enum(SHIPMENT_STATUSES),
    status_at: time,
    station: z.object({ id: z.guid(), code: text(), name: text() }),
    door: z.number().int().nullable(),
    parcel_size: z.enum(['S', 'M', 'L', 'XL']),
    recipient_name: text(),
    /** Masked to the last 3 digits for the support role. */
    recipient_phone: text(),
    deposited_at: time.nullable(),
    overdue_since: time.nullable(),
    expires_at: time.nullable(),
    history: z.array(
      z.object({ status: text(), occurred_at: time, station_code: text().nullable() }),
    ),
  })
  .meta({ id: 'Parcel' });
export type Parcel = z.infer<typeof ParcelSchema>;

export const ParcelSearchSchema = z
  .object({
    /** Which kind of value the search matched (null: nothing). */
    matched: z.enum(PARCEL_MATCHES).nullable(),
    items: z.array(ParcelSchema),
    next_cursor: text().nullable(),
  })
  .meta({ id: 'ParcelSearch' });

export const ParcelSearchQuerySchema = z.strictObject({
  /** A tracking number, a merchant reference, the last digits of a phone (4+), or a station code. */
  q: text().trim().min(1).max(100).optional(),
  /** With `door`: what door N of this station holds (and held). */
  station: text().trim().max(64).optional(),
  door: z.coerce.number().int().min(1).max(10_000).optional(),
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(100).optional(),
});

export const AGE_GROUPS = ['under_1_day', '1_to_3_days', '3_to_7_days', 'over_7_days'] as const;

export const OverdueListSchema = z
  .object({
    station_code: text(),
    /** Counts per time past free storage. */
    groups: z.object(
      Object.fromEntries(AGE_GROUPS.map((g) => [g, z.number().int()])) as Record<
        (typeof AGE_GROUPS)[number],
        z.ZodNumber
      >,
    ),
    items: z.array(
      ParcelSchema.omit({ history: true }).extend({
        age_group: z.enum(AGE_GROUPS),
        expired: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'OverdueList' });

// Couriers, organizations, keys, terminals ---------------------------------------------

export const CourierSchema = z
  .object({
    id: z.guid(),
    number: text(),
    name: text(),
    active: z.boolean(),
    created_at: time,
  })
  .meta({ id: 'Courier' });
export const CourierListSchema = page(CourierSchema).meta({ id: 'CourierList' });
export const CreateCourierRequestSchema = z
  .strictObject({
    number: text().trim().min(1).max(64),
    name: text().trim().min(1).max(200),
  })
  .meta({ id: 'CreateCourierRequest' });

export const OrganizationSchema = z
  .object({
    id: z.guid(),
    name: text(),
    sandbox: z.boolean(),
    active_keys: z.number().int(),
    created_at: time,
  })
  .meta({ id: 'Organization' });
export const OrganizationListSchema = page(OrganizationSchema).meta({ id: 'OrganizationList' });
export const CreateOrganizationRequestSchema = z
  .strictObject({ name: text().trim().min(1).max(200) })
  .meta({ id: 'CreateOrganizationRequest' });

export const ApiKeySchema = z
  .object({ id: z.guid(), created_at: time, revoked_at: time.nullable() })
  .meta({ id: 'ApiKey' });
export const ApiKeyListSchema = z
  .object({ items: z.array(ApiKeySchema) })
  .meta({ id: 'ApiKeyList' });
export const ApiKeyIssuedSchema = z
  .object({
    organization_id: z.guid(),
    key: ApiKeySchema,
    /** Shown once; only its hash is kept. */
    api_key: text(),
    /** Keys revoked by a rotation. */
    revoked: z.array(z.guid()),
  })
  .meta({ id: 'ApiKeyIssued' });
export const OrganizationCreatedSchema = z
  .object({ organization: OrganizationSchema, key: ApiKeySchema, api_key: text() })
  .meta({ id: 'OrganizationCreated' });

export const TerminalListSchema = page(TerminalViewSchema).meta({ id: 'TerminalList' });
export const TERMINAL_FILTERS = ['online', 'offline', 'disabled', 'revoked'] as const;
export const TerminalListQuerySchema = z.strictObject({
  status: z.enum(TERMINAL_FILTERS).optional(),
  station: text().trim().max(64).optional(),
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(200).optional(),
});
export const CreateTerminalRequestSchema = z
  .strictObject({ station: text().trim().min(1).max(64) })
  .meta({ id: 'CreateTerminalRequest' });
export const TerminalCreatedSchema = z
  .object({
    terminal: TerminalViewSchema,
    /** The device token, shown once; only its hash is kept. Enrolment replaces it. */
    token: text(),
    /** The one-time enrolment code (24 h), shown once: docs/terminal-extensions.md. */
    enrolment: EnrolmentCodeSchema,
  })
  .meta({ id: 'TerminalCreated' });
export const EnrolmentCodeIssuedSchema = z
  .object({ terminal: TerminalViewSchema, enrolment: EnrolmentCodeSchema })
  .meta({ id: 'EnrolmentCodeIssued' });
export const ReasonRequestSchema = z
  .strictObject({ reason: text().trim().max(500).optional() })
  .meta({ id: 'ReasonRequest' });

// Audit ---------------------------------------------------------------------------------

export const AuditEntrySchema = z
  .object({
    id: text(),
    at: time,
    actor_id: z.guid().nullable(),
    actor: text(),
    role: text(),
    action: text(),
    target_type: text().nullable(),
    target: text().nullable(),
    reason: text().nullable(),
    outcome: z.enum(['ok', 'refused', 'failed']),
    detail: z.record(text(), z.unknown()).nullable(),
    correlation_id: text().nullable(),
    address: text().nullable(),
  })
  .meta({ id: 'AuditEntry' });
export const AuditListSchema = page(AuditEntrySchema).meta({ id: 'AuditList' });
export const AuditQuerySchema = z.strictObject({
  actor: text().trim().max(254).optional(),
  action: text().trim().max(100).optional(),
  from: time.optional(),
  to: time.optional(),
  cursor: text().max(400).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
});

// Roles ---------------------------------------------------------------------------------

/** What an operator may do. Every /ops/v1 route names the one it needs. */
export const OPS_PERMISSIONS = [
  'stations.read',
  'parcels.read',
  'alerts.read',
  'alerts.manage',
  'doors.service',
  'doors.open',
  'terminals.read',
  'terminals.manage',
  'couriers.read',
  'couriers.manage',
  'organizations.read',
  'organizations.manage',
  'operators.manage',
  'audit.read',
  /** Uploading kiosk releases and rolling them out: every kiosk of the fleet. */
  'releases.manage',
] as const;
export type OpsPermission = (typeof OPS_PERMISSIONS)[number];

/**
 * The roles (README "Operators and roles"): admin everything; operations everything but
 * operators and keys; support reads stations, parcels and alerts and acts on nothing;
 * technician the doors and terminals of the stations assigned to them (and their alerts).
 * The server enforces these; the console leaves off its screens what a role may not do.
 */
export const ROLE_PERMISSIONS: Record<OperatorRole, readonly OpsPermission[]> = {
  admin: OPS_PERMISSIONS,
  operations: OPS_PERMISSIONS.filter(
    (p) => p !== 'operators.manage' && p !== 'organizations.manage',
  ),
  support: ['stations.read', 'parcels.read', 'alerts.read'],
  technician: [
    'stations.read',
    'alerts.read',
    'alerts.manage',
    'doors.service',
    'doors.open',
    'terminals.read',
    'terminals.manage',
  ],
};

export function roleCan(role: OperatorRole, permission: OpsPermission): boolean {
  return ROLE_PERMISSIONS[role].includes(permission);
}
