/**
 * `kiosk-enrol CONFIG CODE`: enrols this kiosk with a one-time code from the operator
 * (`pnpm admin terminal create`), storing its device token in the configuration's
 * `credentialsFile`. Run as the kiosk's user, so the token is that user's alone.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { enrol, EnrolmentError } from './enrolment';

async function main(argv: string[]): Promise<number> {
  const [configFile, ...codeParts] = argv;
  if (!configFile || codeParts.length === 0) {
    process.stderr.write('usage: kiosk-enrol /etc/parcel-locker/kiosk.json 4821-0937-55\n');
    return 2;
  }
  const config = JSON.parse(readFileSync(configFile, 'utf8')) as {
    serverUrl?: string;
    credentialsFile?: string;
  };
  if (!config.serverUrl || !config.credentialsFile) {
    process.stderr.write(`${configFile} needs serverUrl and credentialsFile to enrol\n`);
    return 2;
  }
  const credentials = path.resolve(path.dirname(configFile), config.credentialsFile);
  try {
    const enrolled = await enrol(config.serverUrl, codeParts.join(''), credentials);
    process.stdout.write(
      `Enrolled: this kiosk is terminal ${enrolled.terminal_id} of station ${enrolled.station.code} (${enrolled.station.name}).\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof EnrolmentError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
