import { EnrolResponseSchema, type EnrolResponse } from '@locker/shared';
import ky, { HTTPError } from 'ky';
import { writeCredentials } from './credentials';

export class EnrolmentError extends Error {}

/**
 * Exchanges a one-time enrolment code for this kiosk's device token
 * (`POST /terminal/v1/enrol`) and stores it in `credentialsFile` (0600, written
 * durably) before answering. A refusal is the service's own sentence (a wrong, used or
 * expired code; too many attempts), as an `EnrolmentError`.
 */
export async function enrol(
  serverUrl: string,
  code: string,
  credentialsFile: string,
): Promise<EnrolResponse> {
  let answer: unknown;
  try {
    answer = await ky
      .post(new URL('/terminal/v1/enrol', serverUrl), {
        json: { code },
        timeout: 15_000,
        retry: 0,
      })
      .json();
  } catch (error) {
    if (error instanceof HTTPError) {
      const problem = (await error.response.json().catch(() => ({}))) as { detail?: string };
      const wait = error.response.headers.get('retry-after');
      throw new EnrolmentError(
        error.response.status === 429
          ? `Too many attempts from this kiosk; try again in ${wait ?? 'a few'} s.`
          : (problem.detail ?? `The service refused the code (HTTP ${error.response.status}).`),
      );
    }
    throw new EnrolmentError(
      `The service at ${serverUrl} cannot be reached (${(error as Error).message}); check the network and try again.`,
    );
  }
  const enrolled = EnrolResponseSchema.loose().parse(answer);
  writeCredentials(credentialsFile, {
    token: enrolled.token,
    terminalId: enrolled.terminal_id,
    station: { code: enrolled.station.code, name: enrolled.station.name },
    since: new Date().toISOString(),
  });
  return enrolled;
}
