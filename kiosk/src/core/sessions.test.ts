import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { DoorSession } from '../bridge/api';
import { SessionTracker, judged } from './sessions';

function tracker() {
  const published: (DoorSession | null)[] = [];
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'info', base: null, timestamp: false },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { sessions: new SessionTracker(log, (s) => published.push(s)), published, lines };
}

describe('door-session state machine', () => {
  it('moves along the allowed path, logging every move, and ends inactive once reported', () => {
    const { sessions, published, lines } = tracker();
    const s = sessions.begin('deposit', 4);
    expect(s.to({ phase: 'open' })).toBe(true);
    expect(s.to({ phase: 'left_open' })).toBe(true);
    expect(s.to({ phase: 'closed', ...judged('deposit', false) })).toBe(true);
    expect(s.to({ phase: 'reported', ...judged('deposit', false) })).toBe(true);
    expect(published.at(-1)).toMatchObject({
      id: 1,
      kind: 'deposit',
      door: 4,
      expect: 'item',
      phase: 'reported',
      itemPresent: false,
      asExpected: false,
      active: false,
    });
    expect(lines.filter((l) => l.msg === 'door session moves').map((l) => l.to)).toEqual([
      'open',
      'left_open',
      'closed',
      'reported',
    ]);
    expect(lines[0]).toMatchObject({ session: 1, kind: 'deposit', door: 4, phase: 'unlocking' });
  });

  it('refuses a move the machine does not allow, and one after the session ended', () => {
    const { sessions, lines } = tracker();
    const s = sessions.begin('return', 2);
    expect(s.to({ phase: 'cancelled' })).toBe(false);
    expect(s.phase).toBe('unlocking');
    s.to({ phase: 'open' });
    s.end('the kiosk stopped');
    expect(s.active).toBe(false);
    expect(s.to({ phase: 'take_out_and_close' })).toBe(false);
    expect(lines.filter((l) => l.msg === 'door session move refused')).toHaveLength(2);
  });

  it('publishes only the latest session; an older one moving does not take the screen back', () => {
    const { sessions, published } = tracker();
    const first = sessions.begin('deposit', 1);
    first.to({ phase: 'open' });
    const second = sessions.begin('deposit', 2);
    first.to({ phase: 'closed', ...judged('deposit', true) });
    expect(published.at(-1)).toMatchObject({ id: second.id, door: 2, phase: 'unlocking' });
    expect(sessions.current('deposit')).toBe(second);
    expect(sessions.current('return')).toBeNull();
  });

  it('judges a closed door against what it should hold', () => {
    expect(judged('pickup', false).asExpected).toBe(true);
    expect(judged('pickup', true).asExpected).toBe(false);
    expect(judged('return', true).asExpected).toBe(true);
    expect(judged('collect', true).asExpected).toBe(false);
  });
});
