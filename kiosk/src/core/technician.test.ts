import { describe, expect, it } from 'vitest';
import {
  TechnicianGate,
  hashTechnicianPin,
  verifyTechnicianPin,
  PIN_HASH_PATTERN,
} from './technician';

describe('technician PIN', () => {
  it('stores a salted hash that verifies only the PIN it was made from', () => {
    const hash = hashTechnicianPin('482913');
    expect(hash).toMatch(PIN_HASH_PATTERN);
    expect(hash).not.toContain('482913');
    expect(hashTechnicianPin('482913')).not.toBe(hash);
    expect(verifyTechnicianPin('482913', hash)).toBe(true);
    expect(verifyTechnicianPin('482914', hash)).toBe(false);
  });

  it('grants the right PIN, refuses others, and shuts for five minutes after five wrong ones', () => {
    let now = 1_000_000;
    const gate = new TechnicianGate(hashTechnicianPin('4829'), () => now);
    expect(gate.login('4829')).toEqual({ kind: 'granted' });
    for (let i = 0; i < 4; i++)
      expect(gate.login('0000')).toEqual({ kind: 'refused', retryAfterSeconds: 0 });
    expect(gate.login('0000')).toEqual({ kind: 'refused', retryAfterSeconds: 300 });
    // Locked: even the right PIN is refused until the time is up.
    expect(gate.login('4829')).toEqual({ kind: 'refused', retryAfterSeconds: 300 });
    now += 300_000;
    expect(gate.login('4829')).toEqual({ kind: 'granted' });
  });

  it('keeps the menu shut when no PIN is configured', () => {
    expect(new TechnicianGate(undefined).login('1234')).toEqual({ kind: 'not_configured' });
  });
});
