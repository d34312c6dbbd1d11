import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_STATE, type KioskApi, type KioskState } from '../bridge/api';
import { startBrowserHost, type BrowserHost } from './browserHost';
import { CONTENT_SECURITY_POLICY } from './csp';

const state: KioskState = INITIAL_STATE;
const calls: string[] = [];
const core = Object.assign(new EventEmitter(), {
  getState: () => Promise.resolve(state),
  pickup: (code: string) => {
    calls.push(code);
    return Promise.resolve({ kind: 'door_open' as const, door: 3 });
  },
}) as unknown as KioskApi & EventEmitter;

let host: BrowserHost;
beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'renderer-'));
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>kiosk</title>');
  host = await startBrowserHost(core, dir);
});
afterAll(() => host.close());

describe('browser host', () => {
  it('serves the renderer with a strict CSP, on loopback only', async () => {
    const answer = await fetch(host.url);
    expect(answer.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    expect(new URL(host.url).hostname).toBe('127.0.0.1');
    expect((await fetch(new URL('../../etc/passwd', host.url))).status).toBe(404);
  });

  it('runs bridge calls sent as JSON and refuses anything a cross-site form could send', async () => {
    const json = await fetch(`${host.url}bridge/pickup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '["12345678"]',
    });
    expect(await json.json()).toEqual({ kind: 'door_open', door: 3 });
    const form = await fetch(`${host.url}bridge/pickup`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '["87654321"]',
    });
    expect(form.status).toBe(415);
    expect(calls).toEqual(['12345678']);
    expect(
      (
        await fetch(`${host.url}bridge/notAMethod`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(404);
    const tooLong = await fetch(`${host.url}bridge/pickup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '["12345678901234"]',
    });
    expect(tooLong.status).toBe(500);
    expect(await tooLong.text()).toBe('');
  });
});
