import type { Size, StationWithRoom } from '@locker/shared';
import { ProblemError } from '../http/problem';

/**
 * 409 `station_full`: a booking asked to reserve a door and the station has none free
 * that the parcel fits (within reach, when asked). Extension members (RFC 9457 §3.2):
 * the size needed, and the nearest stations of the organization that have room for it,
 * nearest first (empty when the station has no coordinates or nothing near has room).
 */
export class StationFullProblem extends ProblemError {
  constructor(
    readonly size: Size,
    readonly accessible: boolean,
    readonly alternatives: StationWithRoom[],
  ) {
    super(
      'station_full',
      `No door of size ${size} or larger${accessible ? ' within reach' : ''} is free to reserve at this station.`,
    );
  }

  override body(correlationId: string): Record<string, unknown> {
    return {
      ...super.body(correlationId),
      parcel_size: this.size,
      accessible_door: this.accessible,
      nearest_stations_with_room: this.alternatives,
    };
  }
}
