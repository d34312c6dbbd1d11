import { TerminalClient, type Answer, type CallEvent } from './client';
import type { KioskConfig } from './config';
import type { ConfigCache } from './configCache';
import { DeviceToken, type Checkpoint } from './deviceToken';
import { enrol, EnrolmentError } from './enrolment';
import type { KioskStateStore } from './kioskState';
import type { KioskLog } from './log';

/** While out of service, the heartbeat comes this often, so the kiosk recovers quickly. */
const RECOVERY_HEARTBEAT_MS = 5000;

/**
 * The kiosk's side of the terminal interface, beyond single requests: the heartbeat (and
 * the configuration it brings), the door-grid poll, whether the service answers, and the
 * one resend of a call the offline mark refused. Every call goes through `client`.
 */
export class ServiceLink {
  readonly client: TerminalClient;
  /** The device token sent, and its replacement while a rotation is under way. */
  readonly token: DeviceToken;
  private heartbeatSeen = false;
  private lastHeartbeatAt = 0;
  /** When to ask the service again whether the token is due for replacement. */
  private askRotationAt = 0;

  constructor(
    private readonly config: KioskConfig,
    private readonly log: KioskLog,
    private readonly store: KioskStateStore,
    private readonly configCache: ConfigCache,
    /** The first heartbeat of this run got through: the queue can go out. */
    private readonly firstHeartbeat: () => void,
    checkpoint?: Checkpoint,
  ) {
    this.token = new DeviceToken(config.credentialsFile, config.deviceToken, checkpoint);
    this.client = new TerminalClient(
      config.serverUrl,
      () => this.token.bearer,
      log,
      (e) => this.observeCall(e),
    );
  }

  /**
   * The service menu's enrolment: the code exchanged for this kiosk's own token, stored
   * (0600, durably) in the credentials file, then sent at once.
   */
  async enrol(code: string): Promise<{ code: string; name: string }> {
    if (!this.config.credentialsFile)
      throw new EnrolmentError(
        'This kiosk keeps its token in its configuration (deviceToken); give it a credentialsFile to enrol.',
      );
    const enrolled = await enrol(this.config.serverUrl, code, this.config.credentialsFile);
    this.token.reload();
    this.askRotationAt = 0;
    this.log.info(
      { terminal_id: enrolled.terminal_id, station_code: enrolled.station.code },
      'kiosk enrolled',
    );
    await this.heartbeat();
    return { code: enrolled.station.code, name: enrolled.station.name };
  }

  /** Reports can go out: this run's heartbeat got through and the service still answers. */
  get open(): boolean {
    return this.heartbeatSeen && this.store.state.condition !== 'service_unreachable';
  }

  /** Every 60 s (every 5 s while out of service), counted from the last heartbeat sent. */
  heartbeatDue(now = Date.now()): boolean {
    const normal = this.config.heartbeatIntervalSeconds * 1000;
    const condition = this.store.state.condition;
    const delay =
      condition === 'ok' || condition === 'degraded'
        ? normal
        : Math.min(normal, RECOVERY_HEARTBEAT_MS);
    return now - this.lastHeartbeatAt >= delay;
  }

  /** Every call judges the service: unreachable on the first call that got no answer. */
  private observeCall(event: CallEvent): void {
    if (event.reachable !== this.store.serviceReachable)
      this.store.setHealth({ serviceReachable: event.reachable });
  }

  /** The configuration is applied as received, and kept for the next boot. True: it was. */
  async heartbeat(): Promise<boolean> {
    this.lastHeartbeatAt = Date.now();
    if (!this.token.enrolled) {
      // Not enrolled yet: out of service until a technician types the code.
      this.store.setHealth({ refused: true });
      return false;
    }
    let answer = await this.client.heartbeat(this.config.appVersion);
    // A new token the service does not take: forgotten, the old one sent again.
    if (!answer.ok && answer.status === 401 && this.token.refusedPending()) {
      this.log.warn('the service refused the new device token; the old one is used');
      answer = await this.client.heartbeat(this.config.appVersion);
    }
    if (answer.ok) {
      // The service saw the new token: from now on it is the only one (stored first).
      if (this.token.pending) {
        this.token.answered();
        this.log.info('device token rotated');
      }
      this.configCache.save(answer.value);
      this.store.update({ config: answer.value, configSource: 'service' });
      const first = !this.heartbeatSeen;
      this.heartbeatSeen = true;
      this.store.setHealth({ refused: false });
      if (first) this.firstHeartbeat();
      await this.rotateIfDue();
    } else if (answer.status === 401) {
      // Refused on the heartbeat, which gets through an offline mark: disabled or revoked.
      if (!this.store.refused)
        this.log.warn(
          { alert: 'terminal_refused', correlation_id: answer.correlationId },
          'the service refuses this terminal',
        );
      this.store.setHealth({ refused: true });
    }
    return answer.ok;
  }

  /**
   * Asks whether the token is due for replacement (at boot, then when the service said);
   * an offered token is stored beside the old one, then sent at once: the heartbeat that
   * gets through with it is what retires the old one.
   */
  private async rotateIfDue(): Promise<void> {
    if (!this.token.rotates || this.token.pending || Date.now() < this.askRotationAt) return;
    const answer = await this.client.credentials();
    if (!answer.ok) {
      this.askRotationAt = Date.now() + 3600_000;
      return;
    }
    this.askRotationAt = Math.max(Date.parse(answer.value.rotate_after), Date.now() + 60_000);
    if (answer.value.next_token === null) return;
    this.token.offer(answer.value.next_token);
    await this.heartbeat();
  }

  /** The service's door grid (an unchanged grid costs a 304). True: it answered. */
  async pollCabinet(): Promise<boolean> {
    const answer = await this.client.cabinet();
    if (answer.ok) this.store.update({ cabinet: answer.value });
    return answer.ok;
  }

  /**
   * A call to the service; one refused as `unauthorized` (the offline mark after a lapse
   * of heartbeats) is sent once more after a heartbeat that got through, since a 401 did
   * nothing on the service's side.
   */
  async serve<T>(call: () => Promise<Answer<T>>): Promise<Answer<T>> {
    const answer = await call();
    if (answer.ok || answer.status !== 401 || answer.code !== 'unauthorized') return answer;
    await this.heartbeat();
    return this.store.refused ? answer : call();
  }
}
