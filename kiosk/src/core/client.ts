import {
  CourierReturnsRequestSchema,
  CourierVerifyRequestSchema,
  DepositAlternativesRequestSchema,
  DepositRequestSchema,
  DoorParcelsRequestSchema,
  DoorParcelsResponseSchema,
  SharedDepositCheckRequestSchema,
  SharedDepositCheckResponseSchema,
  SharedDepositRequestSchema,
  SharedDepositResponseSchema,
  DepositRerouteRequestSchema,
  DepositUndoRequestSchema,
  DoorConfirmRequestSchema,
  CabinetEventRequestSchema,
  DoorEventRequestSchema,
  DoorFaultRequestSchema,
  HeartbeatRequestSchema,
  PickupRequestSchema,
  ProblemSchema,
  ReturnCollectedRequestSchema,
  ReturnConfirmRequestSchema,
  ReturnRequestSchema,
  type CabinetResponse,
  OfflineDepositRequestSchema,
} from '@locker/shared';
import ky, { type KyInstance } from 'ky';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { KioskLog } from './log';
import { Answers, tolerant } from './tolerant';

/** Why a call did not give the kiosk what it asked for. */
export interface Failure {
  ok: false;
  /** 0 when nothing usable came back at all (network, DNS, timeout). */
  status: number;
  /**
   * The problem's `code`; `network` for no answer, `bad_answer` for an answer the kiosk
   * cannot use (not what the contract promises), `bad_request` for a request the kiosk's
   * own schema refused before sending.
   */
  code: string | null;
  detail: string | null;
  retryAfterSeconds: number | null;
  /** The whole problem body, for fields beyond the spec's (documented extensions). */
  problem: Record<string, unknown> | null;
  correlationId: string;
}
export type Answer<T> = { ok: true; value: T; correlationId: string } | Failure;

/** Each call's fate, for the core to judge whether the service is reachable. */
export type CallEvent = { path: string; status: number; reachable: boolean };

/**
 * A door event as queued: the extension's body with the door it concerns, which goes in
 * the path (`doors/{door}/events`), not the body.
 */
const QueuedDoorEventSchema = DoorEventRequestSchema.extend({
  position: z.number().int().min(1),
});

/** The kinds of report that go through the durable queue, and where each is sent. */
export const REPORTS = {
  door: { path: 'door/confirm', schema: DoorConfirmRequestSchema },
  return: { path: 'return/confirm', schema: ReturnConfirmRequestSchema },
  return_taken: { path: 'courier/returns/collected', schema: ReturnCollectedRequestSchema },
  deposit_undo: { path: 'deposit/undo', schema: DepositUndoRequestSchema },
  door_fault: { path: 'door/fault', schema: DoorFaultRequestSchema },
  door_event: { path: 'doors/{door}/events', schema: QueuedDoorEventSchema },
  cabinet_event: { path: 'cabinet/events', schema: CabinetEventRequestSchema },
  /** Extension: a deposit the kiosk made on its own, with its door (offlineDeposit.ts). */
  offline_deposit: { path: 'offline/deposit', schema: OfflineDepositRequestSchema },
} as const;
export type ReportKind = keyof typeof REPORTS;
export type ReportBody<K extends ReportKind> = z.input<(typeof REPORTS)[K]['schema']>;

/** Where a queued report goes, and the body sent: a door event's door moves to the path. */
function route(kind: ReportKind, body: Record<string, unknown>): [string, z.ZodType, unknown] {
  if (kind === 'door_event') {
    const { position, ...event } = body;
    return [`doors/${String(position)}/events`, DoorEventRequestSchema, event];
  }
  return [REPORTS[kind].path, REPORTS[kind].schema, body];
}

/** A gateway's answer means the service behind it did not answer. */
const UNREACHABLE = new Set([0, 502, 503, 504]);

/**
 * The terminal interface as the kiosk calls it: ky with no automatic retries (the kiosk
 * decides what to retry), each request body checked against the shared strict schema
 * before it leaves, each answer read tolerantly, and an `X-Correlation-ID` on every call
 * that the log line of the call carries too.
 */
export class TerminalClient {
  private readonly http: KyInstance;
  private cabinetEtag: string | undefined;
  private cabinetCache: CabinetResponse | undefined;

  constructor(
    baseUrl: string,
    /** The device token, or where to read it before each call (it rotates). */
    token: string | (() => string),
    private readonly log: KioskLog,
    private readonly observe: (event: CallEvent) => void = () => {},
    timeoutMs = 10_000,
  ) {
    this.http = ky.create({
      prefixUrl: new URL('/terminal/v1/', baseUrl).toString(),
      retry: 0,
      hooks: {
        beforeRequest: [
          (request) => {
            request.headers.set(
              'authorization',
              `Bearer ${typeof token === 'string' ? token : token()}`,
            );
          },
        ],
      },
      timeout: timeoutMs,
      throwHttpErrors: false,
    });
  }

  private async call<A extends z.ZodType, R extends z.ZodType>(
    answer: A,
    method: 'get' | 'post',
    path: string,
    request?: { schema: R; body: z.input<R> } | { raw: Uint8Array; contentType: string },
    headers: Record<string, string> = {},
  ): Promise<Answer<z.infer<A>> & { response?: Response }> {
    const correlationId = randomUUID();
    const log = this.log.child({ correlation_id: correlationId, call: `${method} ${path}` });
    const fail = (status: number, code: string, detail: string | null): Failure => ({
      ok: false,
      status,
      code,
      detail,
      retryAfterSeconds: null,
      problem: null,
      correlationId,
    });
    let json: unknown;
    let raw: Uint8Array | undefined;
    if (request && 'raw' in request) {
      raw = request.raw;
      headers = { ...headers, 'content-type': request.contentType };
    } else if (request) {
      const checked = request.schema.safeParse(request.body);
      if (!checked.success) {
        log.error({ error: checked.error.message }, 'request refused by its own schema, not sent');
        return fail(0, 'bad_request', checked.error.message);
      }
      json = checked.data;
    }
    const started = performance.now();
    let response: Response;
    try {
      response = await this.http(path, {
        method,
        ...(raw ? { body: new Blob([raw as Uint8Array<ArrayBuffer>]) } : { json }),
        headers: { ...headers, 'x-correlation-id': correlationId },
      });
    } catch (error) {
      log.warn({ error: (error as Error).message }, 'no answer from the service');
      this.observe({ path, status: 0, reachable: false });
      return fail(0, 'network', (error as Error).message);
    }
    const ms = Math.round(performance.now() - started);
    this.observe({ path, status: response.status, reachable: !UNREACHABLE.has(response.status) });
    if (response.ok || response.status === 304) {
      // A 304 has no body; only `cabinet()` asks for one, and it keeps the last grid.
      if (response.status === 304) {
        log.debug({ status: 304, ms }, 'answered');
        return { ok: true, value: undefined as z.infer<A>, correlationId, response };
      }
      const parsed = answer.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) {
        log.error({ status: response.status, ms, error: parsed.error.message }, 'unusable answer');
        return fail(response.status, 'bad_answer', parsed.error.message);
      }
      log[
        path === 'heartbeat' || path === 'cabinet' || path.startsWith('offline/') ? 'debug' : 'info'
      ]({ status: response.status, ms }, 'answered');
      return { ok: true, value: parsed.data, correlationId, response };
    }
    const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
    const problem = ProblemSchema.safeParse(body);
    const retryAfter = Number(response.headers.get('retry-after'));
    const failure: Failure = {
      ok: false,
      status: response.status,
      code: problem.success ? problem.data.code : null,
      detail: problem.success ? (problem.data.detail ?? null) : null,
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
      problem: problem.success ? body : null,
      correlationId,
    };
    log.warn({ status: response.status, ms, code: failure.code }, 'refused');
    return failure;
  }

  /** Extension: whether the service offers a new device token in this one's place. */
  credentials() {
    return this.call(Answers.credentials, 'post', 'credentials');
  }

  heartbeat(appVersion: string) {
    return this.call(Answers.config, 'post', 'heartbeat', {
      schema: HeartbeatRequestSchema,
      body: { appVersion },
    });
  }

  /** The door grid; sends the last ETag so an unchanged grid costs a 304. */
  async cabinet(): Promise<Answer<CabinetResponse>> {
    const answer = await this.call(
      Answers.cabinet,
      'get',
      'cabinet',
      undefined,
      this.cabinetEtag ? { 'if-none-match': this.cabinetEtag } : {},
    );
    if (!answer.ok) return answer;
    if (answer.response?.status === 200) {
      this.cabinetCache = answer.value;
      this.cabinetEtag = answer.response.headers.get('etag') ?? undefined;
    }
    if (!this.cabinetCache) {
      // A 304 to a request that sent no ETag: not what the contract promises.
      return {
        ok: false,
        status: 304,
        code: 'bad_answer',
        detail: null,
        retryAfterSeconds: null,
        problem: null,
        correlationId: answer.correlationId,
      };
    }
    return { ok: true, value: this.cabinetCache, correlationId: answer.correlationId };
  }

  /**
   * Extension: the station's offline pickup verifiers, sent with the ETag of the set the
   * kiosk holds; `value` is null when it is unchanged (304).
   */
  offlinePickups(etag: string | null) {
    return this.offlineSet(Answers.offlinePickups, 'offline/pickups', etag);
  }

  /** Extension: the station's doors, expected parcels and couriers' verifiers, by ETag. */
  offlineDeposits(etag: string | null) {
    return this.offlineSet(Answers.offlineDeposits, 'offline/deposits', etag);
  }

  /** One offline data set, asked for with the ETag of the copy held: null when unchanged. */
  private async offlineSet<A extends z.ZodType>(
    schema: A,
    path: string,
    etag: string | null,
  ): Promise<Answer<{ set: z.infer<A>; etag: string | null } | null>> {
    const answer = await this.call(
      schema,
      'get',
      path,
      undefined,
      etag ? { 'if-none-match': etag } : {},
    );
    if (!answer.ok) return answer;
    const { correlationId, response } = answer;
    if (response?.status === 304) return { ok: true, value: null, correlationId };
    return {
      ok: true,
      value: { set: answer.value, etag: response?.headers.get('etag') ?? null },
      correlationId,
    };
  }

  pickup(code: string) {
    return this.call(Answers.pickup, 'post', 'pickup', {
      schema: PickupRequestSchema,
      body: { code },
    });
  }

  verifyCourier(courierNo: string) {
    return this.call(Answers.courierVerify, 'post', 'courier/verify', {
      schema: CourierVerifyRequestSchema,
      body: { courierNo },
    });
  }

  deposit(courierNo: string, trackingNumber: string) {
    return this.call(Answers.deposit, 'post', 'deposit', {
      schema: DepositRequestSchema,
      body: { courierNo, trackingNumber },
    });
  }

  /** Extension (issue 27): may the parcel join that door of this visit? Changes nothing. */
  checkSharedDeposit(courierNo: string, trackingNumber: string, door: number) {
    return this.call(tolerant(SharedDepositCheckResponseSchema), 'post', 'deposit/shared/check', {
      schema: SharedDepositCheckRequestSchema,
      body: { courierNo, trackingNumber, door },
    });
  }

  /** Extension (issue 27): the parcel joins that door; it takes the door's code. */
  depositShared(courierNo: string, trackingNumber: string, door: number) {
    return this.call(tolerant(SharedDepositResponseSchema), 'post', 'deposit/shared', {
      schema: SharedDepositRequestSchema,
      body: { courierNo, trackingNumber, door },
    });
  }

  /** Extension (issue 27): every parcel awaiting pickup in the door of this one. */
  doorParcels(shipmentId: string) {
    return this.call(tolerant(DoorParcelsResponseSchema), 'post', 'pickup/door-parcels', {
      schema: DoorParcelsRequestSchema,
      body: { shipmentId },
    });
  }

  /** Extension (issue 27): after a `cabinet_full`, the nearest stations with room. */
  depositAlternatives(courierNo: string, trackingNumber: string) {
    return this.call(Answers.depositAlternatives, 'post', 'deposit/alternatives', {
      schema: DepositAlternativesRequestSchema,
      body: { courierNo, trackingNumber },
    });
  }

  /** Extension (issue 27): the parcel goes to `stationCode` instead. */
  rerouteDeposit(courierNo: string, trackingNumber: string, stationCode: string) {
    return this.call(Answers.depositReroute, 'post', 'deposit/reroute', {
      schema: DepositRerouteRequestSchema,
      body: { courierNo, trackingNumber, stationCode },
    });
  }

  startReturn(trackingNumber: string) {
    return this.call(Answers.return, 'post', 'return', {
      schema: ReturnRequestSchema,
      body: { trackingNumber },
    });
  }

  /** Extension: the deposited returns waiting for a courier at this station. */
  courierReturns(courierNo: string) {
    return this.call(Answers.courierReturns, 'post', 'courier/returns', {
      schema: CourierReturnsRequestSchema,
      body: { courierNo },
    });
  }

  /** A report from the durable queue, sent as stored (`occurred_at` included). */
  report<K extends ReportKind>(kind: K, body: ReportBody<K>) {
    const [path, schema, sent] = route(kind, body);
    return this.call(Answers.ok, 'post', path, { schema, body: sent });
  }

  /** Extension (the live link): a log bundle asked for by command `commandId`, gzipped. */
  uploadLogs(commandId: string, gzipped: Uint8Array) {
    return this.call(Answers.ok, 'post', `link/logs/${encodeURIComponent(commandId)}`, {
      raw: gzipped,
      contentType: 'application/gzip',
    });
  }
}
