/**
 * The examples of the operations interface (/ops/v1): the request and the answer of every
 * operation, by operationId. openapi/examples.test.ts checks each against its schema, and
 * opsApi/examples.test.ts sends every request to a real server as a signed-in admin.
 * A new ops route adds its entry here and names it in ops.ts.
 */
import { ids } from './examples';

const AT = '2026-11-22T14:05:12.000Z';
const EARLIER = '2026-11-20T08:00:00.000Z';
const OPERATOR_ID = 'c3d2e1f0-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const TERMINAL_ID = 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b';
const COURIER_ID = 'a9b8c7d6-e5f4-4a3b-8c2d-1e0f2a3b4c5d';
const ORGANIZATION_ID = 'f0e1d2c3-b4a5-4968-8776-a5b4c3d2e1f0';
const KEY_ID = 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e';
const COMMAND_ID = '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b';
const OLD_KEY_ID = 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a';

/** The path parameters' examples, by name (the examples test swaps them for real ones). */
export const opsIds = {
  email: 'arben.operator@ops.example',
  code: 'PR01',
  position: 3,
  alert: '42',
  terminal: TERMINAL_ID,
  courier: '1001',
  organization: ORGANIZATION_ID,
  key: KEY_ID,
  command: COMMAND_ID,
};

const operator = {
  id: OPERATOR_ID,
  email: opsIds.email,
  role: 'operations',
  stations: [],
  set_up: true,
  second_factor_enrolled: true,
  active: true,
  created_at: EARLIER,
  created_by: 'cli',
};
const newOperator = {
  ...operator,
  email: 'drita.technician@ops.example',
  role: 'technician',
  stations: ['PR01'],
  set_up: false,
  second_factor_enrolled: false,
  created_at: AT,
  created_by: 'admin@ops.example',
};
const setupIssued = (of: Record<string, unknown>) => ({
  operator: of,
  setup_token: 'st_Qm9vdHN0cmFwVG9rZW5FeGFtcGxlMQ',
  setup_link: 'https://ops.locker.example/ops/setup#token=st_Qm9vdHN0cmFwVG9rZW5FeGFtcGxlMQ',
  setup_expires_at: '2026-11-25T14:05:12.000Z',
});

const sizes = (S: number, M: number, L: number, XL: number) => ({ S, M, L, XL, unknown: 0 });

const terminal = {
  id: TERMINAL_ID,
  station_code: 'PR01',
  status: 'online',
  revoked: false,
  last_heartbeat_at: AT,
  app_version: 'kiosk-1.4.2',
  link: { connected: false, since: null },
  created_at: EARLIER,
};

/** A one-time enrolment code (24 h); the QR code carries the same digits. */
const enrolment = {
  code: '4821-0937-55',
  expires_at: '2026-11-23T14:05:12.000Z',
  qr_svg:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29"><path d="M0 0h7v7H0z"/></svg>',
};

const rollout = {
  version: '1.4.3',
  pilotStations: ['PR01'],
  percent: 25,
  updatedAt: AT,
  updatedBy: 'admin@ops.example',
  terminals: [
    {
      id: TERMINAL_ID,
      stationCode: 'PR01',
      assigned: true,
      appVersion: '1.4.3',
      lastReport: { version: '1.4.3', outcome: 'running', detail: null, at: AT },
    },
  ],
};

const alert = {
  id: opsIds.alert,
  kind: 'door_fault',
  severity: 'warning',
  status: 'open',
  message: 'Door 3 at PR01 did not open; it is out of service',
  station_id: ids.station,
  station_code: 'PR01',
  terminal_id: TERMINAL_ID,
  door: 3,
  occurrences: 1,
  created_at: AT,
  last_seen_at: AT,
  acknowledged: null,
  resolved: null,
};
const acknowledged = {
  ...alert,
  status: 'acknowledged',
  acknowledged: { at: AT, by: 'arben.operator@ops.example', note: 'technician on the way' },
};

const door = {
  position: 3,
  code: 'A3',
  size: 'L',
  state: 'out_of_service',
  holds: null,
  out_of_service: { reason: 'lock replaced', since: AT, by: 'arben.operator@ops.example' },
  sensor: { state: null, item_present: null, in_session: null, open_since: null, seen_at: null },
};

const parcel = {
  id: ids.shipment,
  tracking_number: ids.tracking,
  merchant_order_reference: 'ORDER-10045',
  organization: { id: ORGANIZATION_ID, name: 'Shop Prishtina' },
  status: 'ready_for_pickup',
  status_at: EARLIER,
  station: { id: ids.station, code: 'PR01', name: 'Prishtina Centre' },
  door: 2,
  parcel_size: 'M',
  recipient_name: 'Drita Gashi',
  recipient_phone: '+38344123456',
  deposited_at: EARLIER,
  overdue_since: '2026-11-22T08:00:00.000Z',
  expires_at: '2026-11-27T08:00:00.000Z',
};

const courier = {
  id: COURIER_ID,
  number: opsIds.courier,
  name: 'Arben Krasniqi',
  active: true,
  created_at: EARLIER,
};
const organization = {
  id: ORGANIZATION_ID,
  name: 'Shop Prishtina',
  sandbox: false,
  active_keys: 1,
  created_at: EARLIER,
};
const key = { id: KEY_ID, created_at: AT, revoked_at: null };

/** The problem a request without a live session gets. */
const signedOut = {
  type: 'https://parcel-locker.dev/problems/unauthorized',
  title: 'Unauthorized',
  status: 401,
  code: 'unauthorized',
  detail: 'Sign in first.',
  correlation_id: '2b7e1516-28ae-4d2a-a6f7-15880934cf4f',
};

/** Request (body) and answer examples, by operationId; `problems` by status, where useful. */
/** A command to a kiosk over the live link, as it came out. */
const linkCommand = (kind: string, door: number | null, outcome: string) => ({
  id: COMMAND_ID,
  station_code: 'PR01',
  door,
  kind,
  args: kind === 'upload_logs' ? { minutes: 30 } : {},
  issued_by: opsIds.email,
  reason: kind === 'open_door' ? 'customer at the locker, code lost' : null,
  issued_at: AT,
  expires_at: '2026-11-22T14:06:12.000Z',
  status: 'done',
  sent_at: AT,
  outcome,
  outcome_detail: null,
  outcome_at: '2026-11-22T14:05:13.000Z',
});

export const opsExamples = {
  opsCompleteSetup: {
    request: {
      token: 'st_Qm9vdHN0cmFwVG9rZW5FeGFtcGxlMQ',
      password: 'correct horse battery staple',
    },
  },
  opsSignIn: {
    request: { email: opsIds.email, password: 'correct horse battery staple' },
    response: { stage: 'second_factor' },
  },
  opsGetSession: {
    response: {
      operator,
      session: {
        created_at: AT,
        expires_at: '2026-11-22T22:05:12.000Z',
        idle_expires_at: '2026-11-22T14:35:12.000Z',
        second_factor_at: AT,
      },
    },
  },
  // Nothing is sent and nothing answered but the problems: the session gone is one.
  opsSignOut: { problems: { 401: signedOut } },
  opsSignOutEverywhere: { problems: { 401: signedOut } },
  opsEnterSecondFactor: {
    request: { code: '492039' },
    response: { stage: 'complete', operator },
  },
  opsStepUp: { request: { code: '492039' } },
  opsListOperators: { response: { items: [operator], next_cursor: null } },
  opsCreateOperator: {
    request: { email: newOperator.email, role: 'technician', stations: ['PR01'] },
    response: setupIssued(newOperator),
  },
  opsDeactivateOperator: { response: { ...operator, active: false } },
  opsResetOperator: {
    response: setupIssued({ ...operator, set_up: false, second_factor_enrolled: false }),
  },
  opsGetOverview: {
    response: {
      alerts_open: { critical: 1, warning: 4, info: 0 },
      stations: 120,
      stations_offline: 2,
      doors_out_of_service: 7,
      parcels_overdue: 31,
      remote_actions_awaiting_approval: 0,
    },
  },
  opsListStations: {
    response: {
      items: [
        {
          id: ids.station,
          code: 'PR01',
          name: 'Prishtina Centre',
          doors: {
            free: sizes(3, 1, 0, 1),
            occupied: sizes(5, 4, 1, 0),
            out_of_service: sizes(0, 0, 1, 0),
          },
          parcels_overdue: 2,
          parcels_expired: 0,
          terminals: { online: 1, offline: 0, disabled: 0 },
          open_alerts: 1,
        },
      ],
      next_cursor: null,
    },
  },
  opsGetStation: {
    response: {
      id: ids.station,
      code: 'PR01',
      name: 'Prishtina Centre',
      cabinet_sn: 'KR-CU16-0042',
      support_phone: '+383 38 200 200',
      free_storage_hours: 72,
      max_storage_hours: 168,
      doors: [
        {
          position: 2,
          code: 'A2',
          size: 'M',
          state: 'occupied',
          holds: {
            kind: 'delivery',
            shipment_id: ids.shipment,
            tracking_number: ids.tracking,
            since: EARLIER,
            overdue_since: null,
            expires_at: '2026-11-27T08:00:00.000Z',
          },
          out_of_service: null,
          sensor: {
            state: null,
            item_present: null,
            in_session: null,
            open_since: null,
            seen_at: null,
          },
        },
        door,
      ],
      terminals: [terminal],
      alerts: [alert],
    },
  },
  opsListOverdue: {
    response: {
      station_code: 'PR01',
      groups: { under_1_day: 1, '1_to_3_days': 0, '3_to_7_days': 0, over_7_days: 0 },
      items: [{ ...parcel, age_group: 'under_1_day', expired: false }],
    },
  },
  opsSetDoorService: {
    request: { in_service: false, reason: 'lock replaced' },
    response: { station_code: 'PR01', door },
  },
  opsSearchParcels: {
    response: {
      matched: 'tracking_number',
      items: [
        {
          ...parcel,
          history: [
            { status: 'booked', occurred_at: '2026-11-19T09:30:00.000Z', station_code: null },
            { status: 'ready_for_pickup', occurred_at: EARLIER, station_code: 'PR01' },
          ],
        },
      ],
      next_cursor: null,
    },
  },
  opsListAlerts: { response: { items: [alert], next_cursor: null } },
  opsStreamAlerts: { response: { event: 'opened', alert } },
  opsAcknowledgeAlert: { request: { note: 'technician on the way' }, response: acknowledged },
  opsResolveAlert: {
    request: { note: 'lock replaced, door back in service' },
    response: {
      ...acknowledged,
      status: 'resolved',
      resolved: {
        at: AT,
        by: 'arben.operator@ops.example',
        note: 'lock replaced, door back in service',
        resolution: 'operator',
      },
    },
  },
  opsListTerminals: { response: { items: [terminal], next_cursor: null } },
  opsCreateTerminal: {
    request: { station: 'PR01' },
    response: {
      terminal: { ...terminal, status: 'offline', last_heartbeat_at: null, app_version: null },
      token: 'tdev_VGVybWluYWxUb2tlbkV4YW1wbGUx',
      enrolment,
    },
  },
  opsGetKioskRollout: { response: rollout },
  opsSetKioskRollout: {
    request: { version: '1.4.3', pilotStations: ['PR01'], percent: 25 },
    response: rollout,
  },
  opsIssueEnrolmentCode: {
    response: { terminal: { ...terminal, status: 'offline' }, enrolment },
  },
  opsDisableTerminal: {
    request: { reason: 'screen broken, kiosk replaced' },
    response: { ...terminal, status: 'disabled' },
  },
  opsEnableTerminal: { request: { reason: 'screen replaced' }, response: terminal },
  opsRevokeTerminal: {
    request: { reason: 'kiosk stolen' },
    response: { ...terminal, status: 'disabled', revoked: true },
  },
  opsListCouriers: { response: { items: [courier], next_cursor: null } },
  opsCreateCourier: {
    request: { number: '1002', name: 'Besa Hoxha' },
    response: { ...courier, number: '1002', name: 'Besa Hoxha', created_at: AT },
  },
  opsDeactivateCourier: {
    request: { reason: 'left the company' },
    response: { ...courier, active: false },
  },
  opsListOrganizations: { response: { items: [organization], next_cursor: null } },
  opsCreateOrganization: {
    request: { name: 'Shop Prizren' },
    response: {
      organization: { ...organization, name: 'Shop Prizren', created_at: AT },
      key,
      api_key: 'sk_U2hvcEtleUV4YW1wbGVPbmx5T25jZQ',
    },
  },
  opsListApiKeys: {
    response: { items: [key, { id: OLD_KEY_ID, created_at: EARLIER, revoked_at: AT }] },
  },
  opsIssueApiKey: {
    response: {
      organization_id: ORGANIZATION_ID,
      key,
      api_key: 'sk_U2hvcEtleUV4YW1wbGVPbmx5T25jZQ',
      revoked: [],
    },
  },
  opsRotateApiKeys: {
    response: {
      organization_id: ORGANIZATION_ID,
      key,
      api_key: 'sk_U2hvcEtleUV4YW1wbGVPbmx5T25jZQ',
      revoked: [OLD_KEY_ID],
    },
  },
  opsRevokeApiKey: {
    request: { reason: 'leaked in a log' },
    response: { ...key, revoked_at: AT },
  },
  opsListAudit: {
    response: {
      items: [
        {
          id: '1207',
          at: AT,
          actor_id: OPERATOR_ID,
          actor: opsIds.email,
          role: 'operations',
          action: 'door.service',
          target_type: 'door',
          target: 'PR01/3',
          reason: 'lock replaced',
          outcome: 'ok',
          detail: { in_service: false },
          correlation_id: '6f1d2c3b-4a59-4e7d-8c6b-5a4f3e2d1c0b',
          address: '10.20.0.15',
        },
      ],
      next_cursor: null,
    },
  },
  opsExportAudit: {
    response:
      'id,at,actor,role,action,target_type,target,reason,outcome,correlation_id,address,detail\r\n' +
      '1207,2026-11-22T14:05:12.000Z,arben.operator@ops.example,operations,door.service,door,PR01/3,lock replaced,ok,6f1d2c3b-4a59-4e7d-8c6b-5a4f3e2d1c0b,10.20.0.15,"{""in_service"":false}"\r\n',
  },
  opsOpenDoorRemotely: {
    request: { reason: 'customer at the locker, code lost', wait_seconds: 10 },
    response: linkCommand('open_door', opsIds.position, 'opened'),
  },
  opsApproveRemoteOpen: {
    request: { wait_seconds: 10 },
    response: linkCommand('open_door', opsIds.position, 'opened'),
  },
  opsRefreshKioskConfig: {
    request: { reason: 'new opening hours' },
    response: linkCommand('refresh_config', null, 'done'),
  },
  opsReloadKioskScreen: {
    request: { reason: 'screen frozen' },
    response: linkCommand('reload_screen', null, 'done'),
  },
  opsUploadKioskLogs: {
    request: { reason: 'door 3 faults', minutes: 30 },
    response: linkCommand('upload_logs', null, 'done'),
  },
  opsGetLinkCommand: { response: linkCommand('open_door', opsIds.position, 'opened') },
  opsGetLinkLogs: { response: '(gzip-compressed JSON lines)' },
} as const;

export type OpsOperationId = keyof typeof opsExamples;
