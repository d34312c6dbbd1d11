import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import type { LinkCommandPayload } from '@locker/shared';
import type { DoorFlows } from './doorFlows';
import type { KioskStateStore } from './kioskState';
import type { OutcomeReport } from './liveLink';
import type { KioskLog } from './log';
import type { ServiceLink } from './serviceLink';
import type { SessionTracker } from './sessions';

/** A log bundle is cut here before compression (the service takes 8 MB compressed). */
const MAX_BUNDLE_BYTES = 48 * 1024 * 1024;

export interface RemoteDeps {
  flows: DoorFlows;
  /** Remote opens' own sessions: they never take the place of a person's on the screen. */
  remoteSessions: SessionTracker;
  service: ServiceLink;
  store: KioskStateStore;
  log: KioskLog;
  /** Where the kiosk's log files are (`<dataDir>/logs`). */
  logsDir: string;
}

/** What each command does at the kiosk, once linkCheck.ts let it through. */
export class RemoteCommands {
  constructor(private readonly d: RemoteDeps) {}

  async execute(command: LinkCommandPayload): Promise<OutcomeReport> {
    switch (command.kind) {
      case 'open_door':
        return this.open(command);
      case 'door_service':
        // The service changed the door's service state: its grid shows it; fetch it now.
        return {
          outcome: (await this.d.service.pollCabinet()) ? 'done' : 'failed',
          detail: { inService: command.args.inService },
        };
      case 'refresh_config':
        return { outcome: (await this.d.service.heartbeat()) ? 'done' : 'failed' };
      case 'upload_logs':
        return this.uploadLogs(command.id, Number(command.args.minutes));
      case 'reload_screen':
        this.d.store.update({ screenReloads: this.d.store.state.screenReloads + 1 });
        return { outcome: 'done' };
      default: {
        const unknown: never = command.kind;
        throw new Error(`unknown command ${String(unknown)}`);
      }
    }
  }

  /**
   * A door session like any other (one pulse, watched until shut), which the screen shows
   * as opened by an operator or a technician; the driver's outcome is the command's.
   */
  private async open(command: LinkCommandPayload): Promise<OutcomeReport> {
    if (this.d.flows.stopped) return { outcome: 'failed', detail: { reason: 'kiosk stopping' } };
    // A board with a suspect polarity opens nothing, remote or not (doorSupervision.ts).
    if (await this.d.flows.d.supervisor.untrusted(command.door!))
      return { outcome: 'refused', detail: { reason: 'suspect_polarity' } };
    const by = command.args.by === 'technician' ? 'technician' : 'operator';
    const session = this.d.remoteSessions.begin('remote', command.door!);
    this.d.store.update({ remoteOpen: { by, session: session.state } });
    const result = await this.d.flows.remoteOpen(session);
    return {
      outcome: result.outcome,
      detail: { pulses: result.pulses, seenOpenAfterMs: result.seenOpenAfterMs },
    };
  }

  /** The log lines of the last `minutes`, gzipped JSON lines, posted to the service. */
  private async uploadLogs(commandId: string, minutes: number): Promise<OutcomeReport> {
    const since = Date.now() - minutes * 60_000;
    const lines = await linesSince(this.d.logsDir, since);
    const body = gzipSync(lines.length ? lines.join('\n') + '\n' : '');
    const answer = await this.d.service.serve(() =>
      this.d.service.client.uploadLogs(commandId, body),
    );
    if (!answer.ok)
      return { outcome: 'failed', detail: { status: answer.status, code: answer.code } };
    return { outcome: 'done', detail: { lines: lines.length, bytes: body.length } };
  }
}

/** The JSON lines of every log file whose `time` is at or after `since`, oldest first. */
export async function linesSince(dir: string, since: number): Promise<string[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith('.log'));
  } catch {
    return [];
  }
  const files = await Promise.all(
    names.map(async (name) => ({
      file: path.join(dir, name),
      ...(await stat(path.join(dir, name))),
    })),
  );
  const found: { time: number; line: string }[] = [];
  let bytes = 0;
  for (const f of files.filter((f) => f.mtimeMs >= since).sort((a, b) => a.mtimeMs - b.mtimeMs)) {
    for (const line of (await readFile(f.file, 'utf8')).split('\n')) {
      if (!line) continue;
      let time: unknown;
      try {
        time = (JSON.parse(line) as { time?: unknown }).time;
      } catch {
        continue;
      }
      if (typeof time !== 'number' || time < since) continue;
      found.push({ time, line });
      bytes += line.length + 1;
    }
  }
  found.sort((a, b) => a.time - b.time);
  // Too much: the newest lines are the ones a support case needs.
  while (bytes > MAX_BUNDLE_BYTES && found.length > 0) bytes -= found.shift()!.line.length + 1;
  return found.map((f) => f.line);
}
