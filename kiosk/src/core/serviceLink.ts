import { TerminalClient, type Answer, type CallEvent } from './client';
import type { KioskConfig } from './config';
import type { ConfigCache } from './configCache';
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
  private heartbeatSeen = false;
  private lastHeartbeatAt = 0;

  constructor(
    private readonly config: KioskConfig,
    private readonly log: KioskLog,
    private readonly store: KioskStateStore,
    private readonly configCache: ConfigCache,
    /** The first heartbeat of this run got through: the queue can go out. */
    private readonly firstHeartbeat: () => void,
  ) {
    this.client = new TerminalClient(config.serverUrl, config.deviceToken, log, (e) =>
      this.observeCall(e),
    );
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
    const answer = await this.client.heartbeat(this.config.appVersion);
    if (answer.ok) {
      this.configCache.save(answer.value);
      this.store.update({ config: answer.value, configSource: 'service' });
      const first = !this.heartbeatSeen;
      this.heartbeatSeen = true;
      this.store.setHealth({ refused: false });
      if (first) this.firstHeartbeat();
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
