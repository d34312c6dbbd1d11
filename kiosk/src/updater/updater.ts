import { createWriteStream, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  UpdateAssignmentSchema,
  type ReleaseManifest,
  type UpdateReportRequest,
} from '@locker/shared';
import ky from 'ky';
import type { DoorPhaseName } from '../bridge/api';
import type { KioskConfig } from '../core/config';
import type { KioskStateStore } from '../core/kioskState';
import type { KioskLog } from '../core/log';
import { digestOf, signedByReleaseKey, unpackBundle } from './release';
import { Slots, type Slot } from './slots';

/** Door phases after which nobody is at the door: a session in any other is under way. */
const AT_REST: ReadonlySet<DoorPhaseName> = new Set([
  'closed',
  'reported',
  'cancelled',
  'did_not_open',
  'unsettled',
]);

export interface UpdaterParts {
  config: KioskConfig & { updates: NonNullable<KioskConfig['updates']> };
  store: KioskStateStore;
  log: KioskLog;
  /** The device token to send now (it rotates). */
  token: () => string;
  /** When a person last touched the screen (any bridge call but reading the state). */
  lastActivityAt: () => number;
  /** Stops the kiosk in order and exits: the launcher starts the slot now on trial. */
  restart: () => void;
}

/**
 * The kiosk's side of signed, staged updates. When idle (no door session under way, the
 * screen untouched for `idleSeconds`, a minute by default) it asks which release its ring should run; a new one is
 * downloaded, its size and SHA-256 checked against the manifest and the manifest's
 * Ed25519 signature against the release key's public half; then it is unpacked into the
 * spare slot, put on trial, and the kiosk restarts into it. Started on trial, it confirms
 * itself once healthy (the service answered its heartbeat, the door board answers) and
 * reports `running`; failures the launcher recorded are reported as `rolled_back`.
 */
export class Updater {
  readonly slots: Slots;
  private readonly slot: Slot;
  private busy = false;
  private lastCheckAt = 0;
  private readonly http;

  constructor(private readonly parts: UpdaterParts) {
    this.slots = new Slots(parts.config.updates.dir);
    this.slot = (process.env.KIOSK_SLOT as Slot | undefined) ?? 'base';
    this.http = ky.create({
      prefixUrl: new URL('/terminal/v1/', parts.config.serverUrl).toString(),
      retry: 0,
      timeout: 120_000,
      hooks: {
        beforeRequest: [
          (request) => {
            request.headers.set('authorization', `Bearer ${parts.token()}`);
          },
        ],
      },
    });
  }

  /** Whether this run is a release on trial, not yet confirmed. */
  get onTrial(): boolean {
    return this.slot !== 'base' && this.slots.read().trial?.slot === this.slot;
  }

  /** Each tick: confirm a trial once healthy, report what waits, then look for a release. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const { store } = this.parts;
      const healthy =
        store.state.configSource === 'service' &&
        (store.state.condition === 'ok' || store.state.condition === 'degraded');
      if (!healthy) return;
      if (this.onTrial) this.confirm();
      await this.reportFailures();
      const due = Date.now() - this.lastCheckAt >= this.parts.config.updates.checkSeconds * 1000;
      if (due && this.idle()) {
        this.lastCheckAt = Date.now();
        await this.check();
      }
    } finally {
      this.busy = false;
    }
  }

  private idle(): boolean {
    const session = this.parts.store.state.session;
    const doorsAtRest = session === null || AT_REST.has(session.phase);
    const quiet = this.parts.config.updates.idleSeconds * 1000;
    return doorsAtRest && Date.now() - this.parts.lastActivityAt() >= quiet;
  }

  private confirm(): void {
    const state = this.slots.update((s) => {
      if (!s.trial || s.trial.slot !== this.slot) return;
      s.active = s.trial.slot;
      s.trial = null;
    });
    const version = this.slots.versionOf(state, this.slot)!;
    this.parts.log.info({ version, slot: this.slot }, 'release healthy: confirmed');
    void this.report({ version, outcome: 'running' });
  }

  private async reportFailures(): Promise<void> {
    for (const failure of this.slots.read().failed.filter((f) => !f.reported)) {
      const outcome = failure.reason.startsWith('refused') ? 'refused' : 'rolled_back';
      if (!(await this.report({ version: failure.version, outcome, detail: failure.reason })))
        return;
      this.slots.update((s) => {
        for (const f of s.failed) if (f.version === failure.version) f.reported = true;
      });
    }
  }

  private async report(report: UpdateReportRequest): Promise<boolean> {
    try {
      await this.http.post('update/report', { json: report });
      return true;
    } catch (error) {
      this.parts.log.warn({ error: String(error), ...report }, 'update report not sent');
      return false;
    }
  }

  private async check(): Promise<void> {
    const { config, log } = this.parts;
    const answer = UpdateAssignmentSchema.parse(await this.http.get('update').json());
    const release = answer.release;
    const state = this.slots.read();
    if (
      !release ||
      release.version === config.appVersion ||
      state.failed.some((f) => f.version === release.version)
    )
      return;
    let publicKey: string;
    try {
      publicKey = readFileSync(config.updates.publicKeyFile, 'utf8');
    } catch {
      // No key to judge a release by: nothing downloaded, nothing installed.
      log.warn(
        { alert: 'release_key_missing', file: config.updates.publicKeyFile },
        'a release is assigned but the release key is not installed (install.sh --release-key)',
      );
      return;
    }
    log.info({ version: release.version }, 'release assigned: downloading');
    const refusal = await this.install(release, publicKey);
    if (refusal) {
      log.warn({ alert: 'release_refused', version: release.version, refusal }, 'release refused');
      this.slots.update((s) => {
        s.failed.push({ version: release.version, reason: `refused: ${refusal}`, reported: false });
      });
      await this.reportFailures();
      return;
    }
    log.info({ version: release.version }, 'release installed: restarting into it');
    this.parts.restart();
  }

  /** Downloads, checks and unpacks a release into the spare slot; a refusal's reason. */
  private async install(release: ReleaseManifest, publicKey: string): Promise<string | null> {
    // The manifest first: a release the key did not sign is not even downloaded.
    if (!signedByReleaseKey(release, publicKey)) return 'the signature is not the release key’s';
    const download = path.join(this.slots.dir, 'download.tar.gz');
    const response = await this.http.get(`update/bundle/${encodeURIComponent(release.version)}`);
    await pipeline(Readable.fromWeb(response.body! as never), createWriteStream(download));
    const { sha256, size } = await digestOf(download);
    if (size !== release.size || sha256 !== release.sha256) {
      rmSync(download, { force: true });
      return `the bundle does not match its signed digest (size ${size}, sha256 ${sha256})`;
    }
    const spare = this.slots.spare();
    const target = this.slots.slotDir(spare);
    const unpacking = `${target}.new`;
    rmSync(unpacking, { recursive: true, force: true });
    mkdirSync(unpacking, { recursive: true });
    await unpackBundle(download, unpacking);
    rmSync(target, { recursive: true, force: true });
    renameSync(unpacking, target);
    rmSync(download, { force: true });
    this.slots.update((s) => {
      s.versions[spare] = release.version;
      s.trial = { slot: spare, version: release.version, since: Date.now(), crashes: 0 };
    });
    return null;
  }
}
