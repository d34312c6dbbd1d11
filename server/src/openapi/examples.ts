/**
 * The examples of the OpenAPI document: a request and an answer for every operation.
 * openapi/examples.test.ts sends every request example to a real server, and checks each
 * answer example against its schema.
 */

const STATION_ID = '5b0e4a7e-2f1c-4d7e-9a51-0c3f6b8d2e41';
const SHIPMENT_ID = '0b5e2f57-8a1e-4c2e-9d7e-3f5c2a1b0c9d';
const RETURN_ID = '7d1c2b3a-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const EVENT_ID = '3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c';
const ENDPOINT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d';
const TRACKING = '4012888888881';
const AT = '2026-11-22T14:05:12.000Z';

export const ids = {
  station: STATION_ID,
  shipment: SHIPMENT_ID,
  event: EVENT_ID,
  endpoint: ENDPOINT_ID,
  tracking: TRACKING,
};

export const shipmentExample = {
  id: SHIPMENT_ID,
  tracking_number: TRACKING,
  status: 'booked',
  destination: { cabinet_sn: 'KR-CU16-0042', slot_no: null },
  destination_station_id: STATION_ID,
  destination_station_code: 'PR01',
  parcel_size: 'M',
  recipient_name: 'Drita Gashi',
  recipient_phone: '+38344123456',
  recipient_language: 'sq',
  merchant_order_reference: 'ORDER-10045',
  label_url: `/api/v1/shipments/${SHIPMENT_ID}/label`,
  created_at: '2026-11-22T09:30:00.000Z',
  updated_at: '2026-11-22T09:30:00.000Z',
};

const readyShipment = {
  ...shipmentExample,
  status: 'ready_for_pickup',
  destination: { cabinet_sn: 'KR-CU16-0042', slot_no: 3 },
  updated_at: AT,
};

export const createShipmentExample = {
  destination_station_id: STATION_ID,
  parcel_size: 'M',
  recipient_name: 'Drita Gashi',
  recipient_phone: '+38344123456',
  recipient_language: 'sq',
  merchant_order_reference: 'ORDER-10045',
};

const webhookEvent = {
  id: EVENT_ID,
  type: 'shipment.ready_for_pickup',
  api_version: '2026-11-22',
  created_at: AT,
  data: { shipment: readyShipment },
};

const endpoint = {
  id: ENDPOINT_ID,
  url: 'https://shop.example/hooks/locker',
  description: 'order system',
  status: 'enabled',
  disabled_reason: null,
  created_at: AT,
};

/** Request (body) and answer examples, by operationId. */
export const examples = {
  getCabinet: {
    response: {
      station: { code: 'PR01', name: 'Prishtina Centre' },
      doors: [
        { position: 1, code: 'A1', size: 'S', status: 'available', parcel: null },
        {
          position: 2,
          code: 'A2',
          size: 'M',
          status: 'occupied',
          parcel: { trackingNumber: TRACKING, recipientFirstName: 'Drita', kind: 'delivery' },
        },
        { position: 3, code: null, size: 'L', status: 'out_of_service', parcel: null },
      ],
    },
  },
  pickup: {
    request: { code: '12345678' },
    response: { ok: true, door: 2, trackingNumber: TRACKING, shipmentId: SHIPMENT_ID },
  },
  confirmPickup: {
    request: { shipmentId: SHIPMENT_ID, collected: true, occurred_at: AT },
    response: { ok: true },
  },
  verifyCourier: {
    request: { courierNo: '1001' },
    response: { ok: true, courierName: 'Arben Krasniqi' },
  },
  deposit: {
    request: { courierNo: '1001', trackingNumber: TRACKING },
    response: { ok: true, door: 2, trackingNumber: TRACKING },
  },
  startReturn: {
    request: { trackingNumber: TRACKING },
    response: { ok: true, door: 4, trackingNumber: TRACKING, returnId: RETURN_ID },
  },
  confirmReturn: {
    request: { returnId: RETURN_ID, deposited: true },
    response: { ok: true },
  },
  heartbeat: {
    request: { appVersion: 'kiosk-1.4.2' },
    response: {
      station_code: 'PR01',
      support_phone: '+383 38 200 200',
      idle_timeout_seconds: 60,
      app_version: 'kiosk-1.4.2',
    },
  },
  reportDoorFault: {
    request: { position: 3, problem: 'did_not_open' },
    response: { ok: true },
  },
  // Issue 27: several parcels, one door, one code (docs/terminal-extensions.md).
  checkSharedDeposit: {
    request: { courierNo: '1001', trackingNumber: TRACKING, door: 2 },
    response: { shareable: true, door: 2, parcelsInDoor: 1 },
  },
  depositShared: {
    request: { courierNo: '1001', trackingNumber: TRACKING, door: 2, occurred_at: AT },
    response: { ok: true, door: 2, trackingNumber: TRACKING, parcelsInDoor: 2 },
  },
  listDoorParcels: {
    request: { shipmentId: SHIPMENT_ID },
    response: {
      door: 2,
      parcels: [
        { shipmentId: SHIPMENT_ID, trackingNumber: TRACKING },
        { shipmentId: 'a3c1e2d4-5b6f-4a7b-8c9d-0e1f2a3b4c5d', trackingNumber: '4012888888882' },
      ],
    },
  },
  undoDeposit: {
    request: { courierNo: '1001', trackingNumber: TRACKING },
    response: { ok: true },
  },
  listDepositAlternatives: {
    request: { courierNo: '1001', trackingNumber: TRACKING },
    response: {
      trackingNumber: TRACKING,
      parcel_size: 'M',
      stations: [
        {
          code: 'PR02',
          name: 'Prishtina Dardania',
          address: 'Rruga Bill Clinton 12, 10000 Prishtinë',
          distance_m: 850,
        },
        { code: 'PR05', name: 'Prishtina Ulpiana', address: null, distance_m: 2140 },
      ],
    },
  },
  rerouteDeposit: {
    request: { courierNo: '1001', trackingNumber: TRACKING, stationCode: 'PR02' },
    response: {
      ok: true,
      trackingNumber: TRACKING,
      station: {
        code: 'PR02',
        name: 'Prishtina Dardania',
        address: 'Rruga Bill Clinton 12, 10000 Prishtinë',
        distance_m: 850,
      },
      held_until: '2026-11-25T14:05:12.000Z',
      recipient_notified: true,
    },
  },
  listCourierReturns: {
    request: { courierNo: '1001' },
    response: { ok: true, parcels: [{ door: 4, trackingNumber: TRACKING, kind: 'return' }] },
  },
  recordReturnCollected: {
    request: { courierNo: '1001', trackingNumber: TRACKING },
    response: { ok: true },
  },
  reportDoorEvent: {
    request: {
      eventId: '6c5b4a39-2817-4f6e-9d5c-4b3a29180f7e',
      kind: 'found_open',
      itemPresent: true,
      visit: null,
    },
    response: { ok: true },
  },
  reportCabinetEvent: {
    request: {
      eventId: '1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b',
      kind: 'board_changed',
      board: 0,
      positions: [1, 2, 3, 4],
      differences: ['firmware 1.3, commissioned with 1.2'],
    },
    response: { ok: true },
  },
  getOfflinePickups: {
    response: {
      version: '42.17',
      pickups: [
        {
          shipmentId: SHIPMENT_ID,
          door: 2,
          collectUntil: '2026-11-29T14:05:12.000Z',
          verifier:
            '$scrypt$ln=14,r=8,p=1$fBr0K5OlF2T4zJVF2fio8g==$H9mF7qnlIyWH7Gh4p6TFPFwRm5csO6gvW1bmhqnPJoc=',
        },
      ],
    },
  },
  getOfflineDeposits: {
    response: {
      doors: [
        { position: 1, size: 'S', free: true },
        { position: 2, size: 'M', free: false },
        { position: 3, size: 'L', free: false },
      ],
      expected: [{ trackingNumber: TRACKING, size: 'M' }],
      couriers: [
        '$scrypt$ln=14,r=8,p=1$xi8q80FTFDglrvppdECtog==$+B5uz5TFsIsLuZtssJKF0fE0lMaCSZW85A2JnSJf91I=',
      ],
    },
  },
  reportOfflineDeposit: {
    request: { courierNo: '1001', trackingNumber: TRACKING, door: 1, occurred_at: AT },
    response: { ok: true, door: 1, trackingNumber: TRACKING },
  },
  createShipment: { request: createShipmentExample, response: shipmentExample },
  listStations: {
    response: {
      data: [
        {
          id: STATION_ID,
          code: 'PR01',
          name: 'Prishtina Center',
          address: 'Rruga Agim Ramadani 15, 10000 Prishtinë',
          latitude: 42.6629,
          longitude: 21.1655,
          opening_hours: [
            { days: ['mo', 'tu', 'we', 'th', 'fr'], opens: '08:00', closes: '20:00' },
          ],
          step_free: true,
          distance_m: 420,
          free_doors: { S: 3, M: 1, L: 0, XL: 1 },
          accessible_free_doors: { S: 1, M: 1, L: 0, XL: 0 },
        },
      ],
      day: '2026-11-22',
      next_cursor: null,
    },
  },
  cancelShipment: { response: { ...shipmentExample, status: 'cancelled' } },
  extendShipment: {
    response: {
      free_until: '2026-11-27T14:05:12.000Z',
      expires_at: '2026-12-01T14:05:12.000Z',
      extended_hours: 48,
      extension_available: false,
    },
  },
  listShipments: { response: { data: [shipmentExample], next_cursor: null } },
  getShipment: { response: shipmentExample },
  getLabel: {},
  trackShipment: {
    response: {
      tracking_number: TRACKING,
      status: 'ready_for_pickup',
      events: [
        { status: 'booked', occurred_at: '2026-11-22T09:30:00.000Z' },
        { status: 'ready_for_pickup', occurred_at: AT, station_code: 'PR01' },
      ],
    },
  },
  createShipmentsInBulk: {
    request: { shipments: [{ idempotency_key: 'ORDER-10045', ...createShipmentExample }] },
    response: {
      results: [
        { index: 0, idempotency_key: 'ORDER-10045', result: 'created', shipment: shipmentExample },
      ],
      created: 1,
      failed: 0,
    },
  },
  listEvents: {
    response: { data: [webhookEvent], has_more: false, next_after: EVENT_ID },
  },
  redeliverEvent: { response: { event_id: EVENT_ID, endpoint_ids: [ENDPOINT_ID] } },
  createWebhookEndpoint: {
    request: { url: 'https://shop.example/hooks/locker', description: 'order system' },
    response: { ...endpoint, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
  },
  listWebhookEndpoints: { response: { data: [endpoint] } },
  deleteWebhookEndpoint: {},
  rotateWebhookSecret: {
    request: { rollover_hours: 24 },
    response: {
      id: ENDPOINT_ID,
      secret: 'whsec_8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r',
      previous_secret_valid_until: '2026-11-23T14:05:12.000Z',
    },
  },
  enableWebhookEndpoint: { response: endpoint },
  listSandboxStations: {
    response: {
      data: [
        {
          id: STATION_ID,
          code: 'SBX-1A2B3C',
          name: 'Sandbox 1A2B3C',
          cabinet_sn: 'SANDBOX-1A2B3C',
        },
      ],
    },
  },
  advanceSandboxShipment: { request: { action: 'deposit' }, response: readyShipment },
  webhookEvent: { request: webhookEvent },
} as const;

export type OperationId = keyof typeof examples;
