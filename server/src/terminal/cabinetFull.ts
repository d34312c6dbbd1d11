import type { Size } from '@locker/shared';
import { ProblemError } from '../http/problem';

/**
 * 409 `cabinet_full` with the parcel's size as data: `parcel_size` is an extension member
 * of the problem body (RFC 9457 §3.2, docs/terminal-extensions.md), so the kiosk names the
 * size without reading `detail` prose. The spec's members are unchanged.
 */
export class CabinetFullProblem extends ProblemError {
  constructor(readonly size: Size) {
    super('cabinet_full', `No free door of size ${size} or larger.`);
  }

  override body(correlationId: string): Record<string, unknown> {
    return { ...super.body(correlationId), parcel_size: this.size };
  }
}
