import {
  CabinetResponseSchema,
  CourierReturnsResponseSchema,
  CourierVerifyResponseSchema,
  DepositResponseSchema,
  OkResponseSchema,
  PickupResponseSchema,
  ProblemSchema,
  ReturnResponseSchema,
  TerminalConfigSchema,
  type CabinetResponse,
} from '@locker/shared';
import ky, { type KyInstance } from 'ky';
import type { z } from 'zod';
import type { ConfirmKind } from './confirmQueue';

/** What an answer of the service means to the kiosk. */
export type Answer<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      status: number;
      code: string | null;
      detail: string | null;
      retryAfterSeconds: number | null;
    }
  /** No answer at all: network down, DNS, timeout. */
  | { ok: false; status: 0; code: 'network'; detail: string | null; retryAfterSeconds: null };

export type Failure = Extract<Answer<unknown>, { ok: false }>;

/**
 * The terminal interface as the kiosk calls it: ky with no automatic retries (the kiosk
 * decides what to retry), every success parsed with the shared zod schemas.
 */
export class TerminalClient {
  private readonly http: KyInstance;
  private cabinetEtag: string | undefined;
  private cabinetCache: CabinetResponse | undefined;

  constructor(baseUrl: string, token: string, timeoutMs = 10_000) {
    this.http = ky.create({
      prefixUrl: new URL('/terminal/v1/', baseUrl).toString(),
      headers: { authorization: `Bearer ${token}` },
      retry: 0,
      timeout: timeoutMs,
      throwHttpErrors: false,
    });
  }

  private async call<S extends z.ZodType>(
    schema: S,
    method: 'get' | 'post',
    path: string,
    json?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer<z.infer<S>> & { response?: Response }> {
    let response: Response;
    try {
      // ky drops the instance's headers (the device token) when `headers: undefined` is passed.
      response = await this.http(path, { method, json, ...(headers ? { headers } : {}) });
    } catch (error) {
      return {
        ok: false,
        status: 0,
        code: 'network',
        detail: (error as Error).message,
        retryAfterSeconds: null,
      };
    }
    if (response.ok || response.status === 304) {
      // A 304 has no body; only `cabinet()` asks for one, and it keeps the last grid.
      const value = (
        response.status === 304 ? undefined : schema.parse(await response.json())
      ) as z.infer<S>;
      return { ok: true, value, response };
    }
    const problem = ProblemSchema.safeParse(await response.json().catch(() => null));
    const retryAfter = Number(response.headers.get('retry-after'));
    return {
      ok: false,
      status: response.status,
      code: problem.success ? problem.data.code : null,
      detail: problem.success ? (problem.data.detail ?? null) : null,
      retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
    };
  }

  heartbeat(appVersion: string) {
    return this.call(TerminalConfigSchema, 'post', 'heartbeat', { appVersion });
  }

  /** The door grid; sends the last ETag so an unchanged grid costs a 304. */
  async cabinet(): Promise<Answer<CabinetResponse>> {
    const answer = await this.call(
      CabinetResponseSchema,
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
    return { ok: true, value: this.cabinetCache! };
  }

  pickup(code: string) {
    return this.call(PickupResponseSchema, 'post', 'pickup', { code });
  }

  verifyCourier(courierNo: string) {
    return this.call(CourierVerifyResponseSchema, 'post', 'courier/verify', { courierNo });
  }

  deposit(courierNo: string, trackingNumber: string) {
    return this.call(DepositResponseSchema, 'post', 'deposit', { courierNo, trackingNumber });
  }

  startReturn(trackingNumber: string) {
    return this.call(ReturnResponseSchema, 'post', 'return', { trackingNumber });
  }

  /** A queued confirm, sent as stored (`occurred_at` included). */
  confirm(kind: ConfirmKind, body: object) {
    const path = {
      door: 'door/confirm',
      return: 'return/confirm',
      return_taken: 'courier/returns/collected',
      deposit_undo: 'deposit/undo',
    }[kind];
    return this.call(OkResponseSchema, 'post', path, body);
  }

  /** Extension: the deposited returns waiting for a courier at this station. */
  courierReturns(courierNo: string) {
    return this.call(CourierReturnsResponseSchema, 'post', 'courier/returns', { courierNo });
  }

  /** Extension: a door that would not open is taken out of service (docs/terminal-extensions.md). */
  reportDoorFault(position: number) {
    return this.call(OkResponseSchema, 'post', 'door/fault', { position });
  }
}
