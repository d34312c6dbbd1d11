/**
 * `pnpm start` and the README's test command from a fresh clone in a private (mode 700)
 * folder of the home directory — /root when the tests run as root, as on these machines —
 * where PostgreSQL's own user cannot reach the clone. The clone is of the committed HEAD;
 * its packages come from the pnpm store, offline.
 */
import { execFile, spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { waitFor } from '@locker/server/testing';
import { freePort, readmeCommands, signalGroup } from './readme';

const run = promisify(execFile);
const home = process.getuid?.() === 0 ? '/root' : homedir();
let folder: string;
let clone: string;

/** The environment of a person at a shell: none of this test run's own settings. */
function personEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(VITEST|TEST_PG_PORT$|DATABASE_URL$|NODE_ENV$|PORT$|KIOSK_PORT$|EMBEDDED_PG)/.test(k),
    ),
  );
  return { ...env, ...extra };
}

function background(line: string, env: NodeJS.ProcessEnv) {
  const child = spawn('bash', ['-c', `exec ${line}`], { cwd: clone, env, detached: true });
  const output = { text: '' };
  child.stdout.on('data', (c: Buffer) => (output.text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.text += c.toString()));
  // 'close': every process holding its output has gone, and the output is all read.
  const exited = new Promise<void>((r) => child.once('close', () => r()));
  return {
    output,
    exited,
    stop: () => {
      // To the whole group, even when its first process has gone: what it started may not
      // have. Not once all is closed: the group's number may belong to others by then.
      if (child.stdout.readableEnded && child.stderr.readableEnded) return exited;
      signalGroup(child.pid!, 'SIGINT');
      return exited;
    },
  };
}

beforeAll(async () => {
  folder = mkdtempSync(path.join(home, 'locker-clone-'));
  chmodSync(folder, 0o700);
  clone = path.join(folder, 'app');
  await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
  await run('pnpm', ['install', '--offline', '--frozen-lockfile', '--reporter=silent'], {
    cwd: clone,
    env: personEnv({}),
  });
}, 300_000);

afterAll(() => {
  // As root the data folders live under /var/lib/parcel-locker, linked from the clone.
  for (const name of ['postgres', 'test-postgres']) {
    const link = path.join(clone, '.data', name);
    try {
      if (lstatSync(link).isSymbolicLink())
        rmSync(readlinkSync(link), { recursive: true, force: true });
    } catch {
      // never created
    }
  }
  rmSync(folder, { recursive: true, force: true });
});

describe('a fresh clone in a private folder of the home directory', () => {
  it(
    'runs pnpm start: kiosk and server answer, banner last, the cabinet kept across a restart',
    { timeout: 360_000 },
    async () => {
      expect(readmeCommands()).toContain('pnpm start');
      const ports = {
        PORT: await freePort(),
        KIOSK_PORT: await freePort(),
        EMBEDDED_PG_PORT: await freePort(),
      };
      const env = personEnv(
        Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      );
      const server = `http://127.0.0.1:${ports.PORT}`;
      const kiosk = `http://127.0.0.1:${ports.KIOSK_PORT}`;
      const bridge = async (method: string, args: unknown[] = []) =>
        await (
          await fetch(`${kiosk}/bridge/${method}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(args),
          })
        ).json();

      const up = async () => {
        const start = background('pnpm start', env);
        await waitFor(() => start.output.text.includes('Stop with Ctrl+C'), 200_000).catch(() => {
          throw new Error(`pnpm start did not come up:\n${start.output.text}`);
        });
        const text = start.output.text;
        expect(text).not.toMatch(/^\s+at /m);
        expect(text).toContain(`${kiosk}/?lang=en   (port ${ports.KIOSK_PORT}, KIOSK_PORT`);
        expect(text).toContain(`http://localhost:${ports.PORT}   (port ${ports.PORT}, PORT`);
        // The banner comes once everything is up, after the startup logs, and whole.
        const banner = text.indexOf('Parcel locker stack is up.');
        expect(text.indexOf('server listening')).toBeGreaterThan(-1);
        expect(text.indexOf('server listening')).toBeLessThan(banner);
        const after = text.slice(text.indexOf('kept in .data for next time.'));
        expect(after, 'printed right after the banner').not.toMatch(/"level":(40|50|60)/);
        const apiKey = /Merchant API key +(sk_\S+)/.exec(text)![1]!;
        const stationId = /Demo station +\S+ \(id ([0-9a-f-]{36})\)/.exec(text)![1]!;
        const pin = /Technician PIN +(\d{6}) /.exec(text)?.[1];
        const admin = /Demo admin +(\S+) +password (\S+)/.exec(text);
        const totpSecret = /TOTP secret ([A-Z2-7]+) /.exec(text)?.[1];
        return { start, apiKey, stationId, pin, admin, totpSecret };
      };

      const first = await up();
      let door: number;
      try {
        const page = await fetch(`${kiosk}/?lang=en`);
        expect(page.status).toBe(200);
        expect(await page.text()).toMatch(/<div id="root"><\/div>/);
        // The operator console, built by pnpm start, and the banner's demo admin signs in.
        expect(first.start.output.text).toContain(`http://localhost:${ports.PORT}/ops/`);
        const consolePage = await fetch(`${server}/ops/`);
        expect(consolePage.status).toBe(200);
        expect(await consolePage.text()).toMatch(/<div id="root"><\/div>/);
        const [, email, password] = first.admin!;
        const headers = { 'content-type': 'application/json', origin: server };
        const login = await fetch(`${server}/ops/v1/session`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ email, password }),
        });
        expect(await login.json()).toEqual({ stage: 'second_factor' });
        // The code of the step after the enrolment's: a code is accepted once.
        const code = new TOTP({ secret: Secret.fromBase32(first.totpSecret!) }).generate({
          timestamp: Date.now() + 30_000,
        });
        const second = await fetch(`${server}/ops/v1/session/second-factor`, {
          method: 'POST',
          headers: { ...headers, cookie: login.headers.getSetCookie()[0]!.split(';')[0]! },
          body: JSON.stringify({ code }),
        });
        expect(second.status).toBe(200);
        const merchant = { authorization: `Bearer ${first.apiKey}` };
        const booked = (await (
          await fetch(`${server}/api/v1/shipments`, {
            method: 'POST',
            headers: { ...merchant, 'content-type': 'application/json' },
            body: JSON.stringify({
              destination_station_id: first.stationId,
              parcel_size: 'S',
              recipient_name: 'Drita Gashi',
              recipient_phone: '+38344123456',
              recipient_language: 'sq',
            }),
          })
        ).json()) as { id: string; tracking_number: string };
        // The courier's deposit on the kiosk; the simulated courier shuts the door 6 s later.
        const opened = await bridge('deposit', ['1001', booked.tracking_number]);
        door = opened.door as number;
        expect(door, JSON.stringify(opened)).toBeGreaterThan(0);
        // Shut by the simulated courier 6 s after opening, with the parcel inside.
        await waitFor(async () => {
          const sensors = await bridge('readSensors');
          const seen = sensors.doors?.find((d: { position: number }) => d.position === door);
          return seen?.closed === true && seen.itemPresent === true;
        }, 60_000);
        const shipment = (await (
          await fetch(`${server}/api/v1/shipments/${booked.id}`, { headers: merchant })
        ).json()) as { status: string };
        expect(shipment.status).toBe('ready_for_pickup');
        // The banner's technician PIN opens the demo kiosk's service menu.
        expect(first.pin).toMatch(/^\d{6}$/);
        expect(await bridge('technicianLogin', [first.pin])).toEqual({ kind: 'granted' });
      } finally {
        await first.start.stop();
      }
      await expect(fetch(`${server}/openapi.json`)).rejects.toThrow();

      // Started again: the same demo, and the parcel still inside its door.
      const second = await up();
      try {
        expect(second.apiKey).toBe(first.apiKey);
        expect(second.pin).toBe(first.pin);
        const sensors = await bridge('readSensors');
        expect(sensors.doors.find((d: { position: number }) => d.position === door)).toEqual({
          position: door,
          known: true,
          closed: true,
          itemPresent: true,
          mismatch: null,
        });
      } finally {
        await second.start.stop();
      }
    },
  );

  it("runs the README's test command (one file of it)", { timeout: 240_000 }, async () => {
    const [line] = readmeCommands().filter((c) => /^pnpm test \S+$/.test(c));
    const env = personEnv({ TEST_PG_PORT: String(await freePort()) });
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', ['-c', line!], { cwd: clone, env, detached: true });
      let output = '';
      child.stdout.on('data', (c: Buffer) => (output += c.toString()));
      child.stderr.on('data', (c: Buffer) => (output += c.toString()));
      // A run that hangs, or leaves a process holding its output, is ended with what it
      // printed, rather than at the test's own limit with nothing to show.
      const deadline = setTimeout(() => {
        output += '\n[killed after 200 s]';
        signalGroup(child.pid!, 'SIGKILL');
      }, 200_000);
      child.once('close', (code) => {
        clearTimeout(deadline);
        resolve({ code, output });
      });
    });
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/Test Files .*1 passed/);
  });
});
