import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LockDriverError } from '../errors';
import { CabinetSchema, type Cabinet, type CabinetFile } from './schema';

/** Every mistake of a cabinet description, one per line, each with its field. */
export function describeCabinetIssues(source: string, raw: unknown): Cabinet {
  const parsed = CabinetSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues
    .map((i) => `  ${i.path.join('.') || '(file)'}: ${i.message}`)
    .join('\n');
  throw new LockDriverError('INVALID_CABINET', `${source} has mistakes:\n${problems}`);
}

/** Reads and checks a cabinet file; errors name the file and every wrong field. */
export function loadCabinetFile(file: string): Cabinet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new LockDriverError('INVALID_CABINET', `cabinet file ${file} not found`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new LockDriverError(
      'INVALID_CABINET',
      `${file} is not valid JSON: ${(error as Error).message}`,
    );
  }
  return describeCabinetIssues(file, raw);
}

/** Checks, then writes atomically (a kiosk reading it never sees half a file). */
export function writeCabinetFile(file: string, cabinet: CabinetFile): Cabinet {
  const checked = describeCabinetIssues(file, cabinet);
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(cabinet, null, 2) + '\n');
  renameSync(temporary, file);
  return checked;
}
