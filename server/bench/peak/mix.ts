import type { Call, Driver, Stream } from './driver';
import type { DepositAnswer } from './invariants';
import type { Rates, Shares } from './plan';
import {
  bookedParcel,
  courierNo,
  hotParcel,
  pickupOf,
  randomOrganization,
  returnableParcel,
  stationCode,
  tokenOf,
  type Network,
} from './seed';

/** Where each seeded pool has got to: phases consume them in turn, never twice. */
export interface Cursors {
  booked: number;
  hot: number;
  pickup: number;
  returnable: number;
  idempotencyKey: number;
}

export const newCursors = (): Cursors => ({
  booked: 0,
  hot: 0,
  pickup: 0,
  returnable: 0,
  idempotencyKey: 0,
});

const json = (token: string) => ({
  authorization: `Bearer ${token}`,
  'content-type': 'application/json',
});
const random = (n: number) => Math.floor(Math.random() * n);

/**
 * The streams of one run. Deposits answered 200 go to `deposits` for the invariants;
 * kiosks keep the ETag of their last /cabinet answer, as real ones do.
 */
export function peakCalls(
  net: Network,
  rates: Rates,
  shares: Shares,
  cursors: Cursors,
  driver: Driver,
  deposits: DepositAnswer[],
) {
  const stations = net.stations;
  const { pools } = net;
  const terminal = (code: string) => json(tokenOf(code));
  const recentBodies: { key: string; idem: string; body: string }[] = [];

  const create = (): Call => {
    const org = randomOrganization();
    const key = net.apiKeys[org]!;
    let idem: string | undefined;
    let body = JSON.stringify({
      destination_station_id: net.stationIds[random(net.stationIds.length)],
      parcel_size: (['S', 'M', 'L', 'XL'] as const)[random(4)],
      recipient_name: 'Katarzyna Wójcik',
      recipient_phone: '+48601234567',
      recipient_language: 'en',
      merchant_order_reference: `ORD-${random(1e9)}`,
    });
    let apiKey = key;
    const roll = Math.random();
    if (roll < shares.idempotent * shares.replay && recentBodies.length) {
      // The shop's retry after a lost answer: same key, same body, the first answer again.
      const prior = recentBodies[random(recentBodies.length)]!;
      ({ idem, body, key: apiKey } = prior);
    } else if (roll < shares.idempotent) {
      idem = `peak-${cursors.idempotencyKey++}`;
      recentBodies.push({ key, idem, body });
      if (recentBodies.length > 1000) recentBodies.shift();
    }
    return {
      endpoint: 'POST /api/v1/shipments',
      method: 'POST',
      path: '/api/v1/shipments',
      headers: {
        ...json(apiKey),
        ...(idem ? { 'idempotency-key': idem } : {}),
      },
      body,
      expect: [201],
      then: (status, _headers, answer) => {
        if (status !== 201) return;
        const { id } = JSON.parse(answer) as { id: string };
        if (Math.random() < rates.labelShare) driver.after(200, label(id, apiKey));
      },
    };
  };
  const label = (id: string, apiKey: string): Call => ({
    endpoint: 'GET /api/v1/shipments/{id}/label',
    method: 'GET',
    path: `/api/v1/shipments/${id}/label`,
    headers: { authorization: `Bearer ${apiKey}` },
    expect: [200],
  });

  const verify = (): Call => ({
    endpoint: 'POST /courier/verify',
    method: 'POST',
    path: '/terminal/v1/courier/verify',
    headers: terminal(stationCode(random(stations))),
    body: JSON.stringify({ courierNo: courierNo(random(1e6)) }),
    expect: [200],
  });

  const deposit = (
    parcel: { station: string; trackingNumber: string },
    endpoint: string,
  ): Call => ({
    endpoint,
    method: 'POST',
    path: '/terminal/v1/deposit',
    headers: terminal(parcel.station),
    body: JSON.stringify({
      courierNo: courierNo(random(1e6)),
      trackingNumber: parcel.trackingNumber,
    }),
    expect: [200],
    then: (status, _headers, answer) => {
      if (status === 200) {
        const { door } = JSON.parse(answer) as { door: number };
        deposits.push({ trackingNumber: parcel.trackingNumber, door });
        hinted(parcel.station);
      }
    },
  });

  const confirm = (station: string, shipmentId: string, lateBy: number): Call => ({
    endpoint: lateBy ? 'POST /door/confirm (late)' : 'POST /door/confirm',
    method: 'POST',
    path: '/terminal/v1/door/confirm',
    headers: terminal(station),
    body: JSON.stringify({
      shipmentId,
      collected: true,
      ...(lateBy ? { occurred_at: new Date(Date.now() - lateBy).toISOString() } : {}),
    }),
    expect: [200],
    then: (status) => {
      if (status === 200) hinted(station);
    },
  });

  const pickup = (): Call | undefined => {
    if (cursors.pickup >= pools.pickups) return undefined;
    const p = pickupOf(cursors.pickup++, stations);
    return {
      endpoint: 'POST /pickup',
      method: 'POST',
      path: '/terminal/v1/pickup',
      headers: terminal(p.station),
      body: JSON.stringify({ code: p.code }),
      expect: [200],
      then: (status, _headers, answer) => {
        if (status !== 200) return;
        const { shipmentId } = JSON.parse(answer) as { shipmentId: string };
        // The customer takes the parcel and shuts the door; a share of kiosks were offline
        // and replay the confirm later, saying when it happened.
        if (Math.random() < shares.lateConfirm)
          driver.after(5000, confirm(p.station, shipmentId, 4000));
        else driver.after(1000, confirm(p.station, shipmentId, 0));
      },
    };
  };

  const wrongPickup = (): Call => ({
    endpoint: 'POST /pickup (wrong code)',
    method: 'POST',
    path: '/terminal/v1/pickup',
    headers: terminal(stationCode(random(stations))),
    // Seeded codes are below 10^7 · 9; these never match one.
    body: JSON.stringify({ code: String(90_000_000 + random(9_999_999)) }),
    expect: [401],
  });

  const startReturn = (): Call | undefined => {
    if (cursors.returnable >= pools.returnable) return undefined;
    const r = returnableParcel(cursors.returnable++, stations);
    return {
      endpoint: 'POST /return',
      method: 'POST',
      path: '/terminal/v1/return',
      headers: terminal(r.station),
      body: JSON.stringify({ trackingNumber: r.trackingNumber }),
      expect: [200],
      then: (status, _headers, answer) => {
        if (status !== 200) return;
        const { returnId } = JSON.parse(answer) as { returnId: string };
        driver.after(2000, returnConfirm(r.station, returnId));
      },
    };
  };

  const heartbeat = (): Call => ({
    endpoint: 'POST /heartbeat',
    method: 'POST',
    path: '/terminal/v1/heartbeat',
    headers: terminal(stationCode(random(stations))),
    body: '{"appVersion":"peak-1.0.0"}',
    expect: [200],
  });

  const cabinetOf = (code: string, withEtag: boolean, endpoint?: string): Call => {
    const etag = net.etags.get(code);
    return {
      endpoint: endpoint ?? (withEtag ? 'GET /cabinet (If-None-Match)' : 'GET /cabinet'),
      method: 'GET',
      path: '/terminal/v1/cabinet',
      headers: {
        authorization: `Bearer ${tokenOf(code)}`,
        ...(withEtag && etag ? { 'if-none-match': etag } : {}),
      },
      expect: [200, 304],
      then: (_status, headers) => {
        if (typeof headers.etag === 'string') net.etags.set(code, headers.etag);
      },
    };
  };
  const cabinet = (): Call =>
    cabinetOf(stationCode(random(stations)), Math.random() < shares.cabinetWithEtag);
  // The live link's "cabinet changed" hint: the station's kiosk reads its grid at once.
  function hinted(station: string): void {
    if (Math.random() < rates.cabinetHints)
      driver.after(100, cabinetOf(station, true, 'GET /cabinet (hinted)'));
  }

  /** The kiosk's offline sets (kiosk/src/core/kiosk.ts), each polled with its last ETag. */
  const offlineEtags = { pickups: net.pickupSetEtags, deposits: net.depositSetEtags };
  const offlineSet = (set: 'pickups' | 'deposits'): Call => {
    const code = stationCode(random(stations));
    const etag = offlineEtags[set].get(code);
    return {
      endpoint: `GET /offline/${set}`,
      method: 'GET',
      path: `/terminal/v1/offline/${set}`,
      headers: {
        authorization: `Bearer ${tokenOf(code)}`,
        ...(etag ? { 'if-none-match': etag } : {}),
      },
      expect: [200, 304],
      then: (_status, headers) => {
        if (typeof headers.etag === 'string') offlineEtags[set].set(code, headers.etag);
      },
    };
  };

  const returnConfirm = (station: string, returnId: string): Call => ({
    endpoint: 'POST /return/confirm',
    method: 'POST',
    path: '/terminal/v1/return/confirm',
    headers: terminal(station),
    body: JSON.stringify({ returnId, deposited: true }),
    expect: [200],
  });
  const ordinaryDeposit = () =>
    cursors.booked < pools.booked
      ? deposit(bookedParcel(cursors.booked++, stations), 'POST /deposit')
      : undefined;
  const hotDeposits = () => {
    if (cursors.hot + 4 > pools.hotBooked) return undefined;
    return [0, 1, 2, 3].map(() =>
      deposit(hotParcel(cursors.hot++, pools.hotStations), 'POST /deposit (hot station)'),
    );
  };
  return {
    create,
    verify,
    ordinaryDeposit,
    hotDeposits,
    pickup,
    confirm,
    wrongPickup,
    startReturn,
    returnConfirm,
    heartbeat,
    cabinet,
    offlinePickups: () => offlineSet('pickups'),
    offlineDeposits: () => offlineSet('deposits'),
  };
}

export type PeakCalls = ReturnType<typeof peakCalls>;

export function peakStreams(calls: PeakCalls, rates: Rates, shares: Shares): Stream[] {
  const streams: Stream[] = [
    { name: 'create', rate: rates.create, next: calls.create },
    { name: 'courier verify', rate: rates.courierVerify, next: calls.verify },
    { name: 'deposit', rate: rates.deposit * (1 - shares.hotDeposit), next: calls.ordinaryDeposit },
    // Four couriers at one hot station at the same moment.
    { name: 'hot deposit', rate: (rates.deposit * shares.hotDeposit) / 4, next: calls.hotDeposits },
    { name: 'pickup', rate: rates.pickup, next: calls.pickup },
    { name: 'wrong pickup', rate: rates.wrongPickup, next: calls.wrongPickup },
    { name: 'return', rate: rates.returns, next: calls.startReturn },
    { name: 'heartbeat', rate: rates.heartbeat, next: calls.heartbeat },
    { name: 'cabinet', rate: rates.cabinet, next: calls.cabinet },
    { name: 'offline pickups', rate: rates.offlinePickups, next: calls.offlinePickups },
    { name: 'offline deposits', rate: rates.offlineDeposits, next: calls.offlineDeposits },
  ];
  return streams.filter((s) => s.rate > 0);
}
