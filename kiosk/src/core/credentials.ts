import {
  closeSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/**
 * The kiosk's device token, in a file of its own in the data folder (`credentialsFile`),
 * readable by the kiosk's user only: the enrolment writes it, the rotation replaces it.
 * `next` is a token the service offered in the current one's place: kept beside it until
 * the service has seen it used (docs/terminal-extensions.md, "Rotating device tokens").
 */
export const CredentialsSchema = z.strictObject({
  token: z.string().min(16),
  next: z.string().min(16).optional(),
  terminalId: z.string().optional(),
  station: z.strictObject({ code: z.string(), name: z.string() }).optional(),
  /** When the token was written here (ISO). */
  since: z.string().optional(),
});
export type Credentials = z.infer<typeof CredentialsSchema>;

export class CredentialsError extends Error {}

/** The stored credentials, or undefined when the kiosk has not been enrolled yet. */
export function readCredentials(file: string): Credentials | undefined {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return undefined;
  }
  if ((stat.mode & 0o077) !== 0)
    throw new CredentialsError(
      `${file} holds the device token and must be readable by its owner only: chmod 600 ${file}`,
    );
  const parsed = CredentialsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new CredentialsError(`${file} is not a kiosk's credentials file: enrol the kiosk again`);
  return parsed.data;
}

/**
 * Replaces the credentials so that a power cut at any instant leaves either the old file
 * or the new one, whole: written to a temporary file (0600) beside it, flushed to the
 * disk, renamed over the old one, and the folder flushed so the rename itself survives.
 */
export function writeCredentials(
  file: string,
  credentials: Credentials,
  /** Called once the temporary file is on the disk, before the rename (the tests' power cut). */
  written: () => void = () => {},
): void {
  const data = JSON.stringify(CredentialsSchema.parse(credentials), null, 2) + '\n';
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`);
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  written();
  renameSync(temporary, file);
  const folder = openSync(path.dirname(file), 'r');
  try {
    fsyncSync(folder);
  } finally {
    closeSync(folder);
  }
}
