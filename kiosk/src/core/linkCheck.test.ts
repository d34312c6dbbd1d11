import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linkSignedBytes } from '@locker/shared';
import { backoffDelay } from './liveLink';
import { checkCommand, pinnedKey, type CheckContext } from './linkCheck';

// The gate every command on the link passes, without a socket: each way a message can
// fail to be the service's command for this kiosk, now.

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12).toString('base64');
  return { privateKey, raw };
}
const service = keyPair();
const NOW = new Date('2026-11-25T10:00:00.000Z');

function payload(over: object = {}) {
  return JSON.stringify({
    v: 1,
    id: randomUUID(),
    station: 'PR01',
    door: 3,
    kind: 'open_door',
    args: { by: 'operator' },
    nonce: 'n'.repeat(24),
    issuedAt: new Date(NOW.getTime() - 1000).toISOString(),
    expiresAt: new Date(NOW.getTime() + 59_000).toISOString(),
    ...over,
  });
}
const signed = (text: string, key = service.privateKey) => ({
  type: 'command',
  payload: text,
  signature: sign(null, linkSignedBytes(text), key).toString('base64'),
});
const ctx = (over: Partial<CheckContext> = {}): CheckContext => ({
  key: pinnedKey(service.raw),
  station: 'PR01',
  doors: new Set([1, 2, 3]),
  now: NOW,
  seen: () => false,
  ...over,
});

describe('a command on the link', () => {
  it('runs when signed by the pinned key, fresh, for this station and one of its doors', () => {
    expect(checkCommand(signed(payload()), ctx())).toMatchObject({
      verdict: 'run',
      command: { door: 3, kind: 'open_door' },
    });
  });

  it('is rejected unsigned, signed by another key, tampered with, or with no key pinned', () => {
    const text = payload();
    expect(checkCommand({ type: 'command', payload: text }, ctx())).toMatchObject({
      verdict: 'reject',
      reason: 'unsigned',
    });
    expect(checkCommand(signed(text, keyPair().privateKey), ctx())).toMatchObject({
      verdict: 'reject',
      reason: 'bad_signature',
    });
    const tampered = { ...signed(text), payload: text.replace('"door":3', '"door":2') };
    expect(checkCommand(tampered, ctx())).toMatchObject({ reason: 'bad_signature' });
    const noise = { ...signed(text), signature: 'not base64 at all!' };
    expect(checkCommand(noise, ctx())).toMatchObject({ reason: 'bad_signature' });
    expect(checkCommand(signed(text), ctx({ key: undefined }))).toMatchObject({
      verdict: 'reject',
      reason: 'no_key',
    });
  });

  it('is rejected as a replay when its nonce was seen', () => {
    expect(checkCommand(signed(payload()), ctx({ seen: () => true }))).toMatchObject({
      verdict: 'reject',
      reason: 'replayed',
    });
  });

  it('is reported expired at its expiry, not run', () => {
    const text = payload({ expiresAt: NOW.toISOString() });
    expect(checkCommand(signed(text), ctx())).toMatchObject({
      verdict: 'report',
      outcome: 'expired',
    });
  });

  it('is refused for another station, an unknown station, a door this cabinet has not', () => {
    expect(checkCommand(signed(payload({ station: 'PR02' })), ctx())).toMatchObject({
      verdict: 'report',
      outcome: 'refused',
      reason: 'meant for another station',
    });
    expect(checkCommand(signed(payload()), ctx({ station: null }))).toMatchObject({
      outcome: 'refused',
    });
    expect(checkCommand(signed(payload({ door: 9 })), ctx())).toMatchObject({
      outcome: 'refused',
      reason: 'no such door here',
    });
  });
});

describe('reconnecting', () => {
  it('waits a random time below a ceiling that doubles from 1 s up to 60 s', () => {
    expect([0, 1, 2, 5, 6, 20].map((n) => backoffDelay(n, () => 0.999_999))).toEqual([
      999, 1999, 3999, 31_999, 59_999, 59_999,
    ]);
    expect(backoffDelay(3, () => 0)).toBe(0);
  });
});
