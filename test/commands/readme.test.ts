/**
 * Every command the README prints, run as printed (placeholders such as ID filled in, the
 * practice port 4001 swapped for a free one), checked against what the README says it does.
 * `pnpm start` and `pnpm test` run from a private clone in rootClone.test.ts.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runAdmin } from '@locker/server';
import { useTestServer, waitFor } from '@locker/server/testing';
import { PNPM_OWN_COMMANDS, freePort, readmeCommands, shellWords, signalGroup } from './readme';

const commands = readmeCommands();

/** Where each printed command is exercised: this file's tests, by a pattern, or another file. */
const COVERED: [RegExp, string][] = [
  [/^pnpm (start|test)( server\/src\/db\/migrate\.test\.ts)?$/, 'rootClone.test.ts'],
  [/^pnpm serve( -- --dev)?$/, 'serves both interfaces'],
  [/^pnpm admin /, 'operator CLI'],
  [/^pnpm (lint|typecheck)$/, 'lint and typecheck'],
  [/^pnpm bench$/, 'scripts pnpm does not shadow'],
  [/^pnpm --filter @locker\/kiosk kiosk /, 'kiosk browser host'],
  [/^pnpm lockctl /, 'lockctl'],
  [/^pnpm licence-check$/, 'licences.test.ts'],
  [/^pnpm --filter @locker\/server deploy /, 'production.test.ts'],
];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A printed command line through bash, from the repository root, as a person runs it. */
function sh(line: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', line], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      signalGroup(child.pid!, 'SIGKILL');
    }, timeoutMs);
    // 'close', not 'exit': the output may still be in the pipes when the process has gone.
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running printed command; `stop()` is Ctrl+C to its whole process group. */
function background(line: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', `exec ${line}`], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    detached: true,
  });
  const output = { text: '' };
  child.stdout.on('data', (c: Buffer) => (output.text += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.text += c.toString()));
  // Once every process holding its output has gone and the output is all read (pnpm may
  // end by the signal before the server it started has logged its shutdown).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('close', (code, signal) => r({ code, signal })),
  );
  return {
    output,
    exited,
    stop: async () => {
      // To the whole group, even when its first process has gone: what it started may not
      // have. Not once all is closed: the group's number may belong to others by then.
      if (child.stdout.readableEnded && child.stderr.readableEnded) return exited;
      signalGroup(child.pid!, 'SIGINT');
      return exited;
    },
  };
}

const printed = (pattern: RegExp) => commands.filter((c) => pattern.test(c));

const stack = useTestServer();

describe('the README', () => {
  it('prints commands, and every one of them is exercised by a test', () => {
    expect(commands.length).toBeGreaterThan(20);
    const uncovered = commands.filter((c) => !COVERED.some(([pattern]) => pattern.test(c)));
    expect(uncovered).toEqual([]);
  });

  it('names only scripts pnpm runs, none that pnpm shadows with a command of its own', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    const scripts = Object.keys(pkg.scripts);
    expect(scripts.filter((s) => PNPM_OWN_COMMANDS.includes(s))).toEqual([]);
    for (const command of commands) {
      const word = shellWords(command)[1]!;
      if (word === '--filter') continue;
      expect(scripts, command).toContain(word);
    }
  });
});

describe.concurrent('README commands, run as printed', () => {
  it('pnpm serve: serves both interfaces until Ctrl+C', { timeout: 90_000 }, async () => {
    // The development form: without PICKUP_CODE_SECRET, `--dev` is what lets it start.
    const [line] = printed(/^pnpm serve -- --dev$/);
    const port = await freePort();
    const smsDir = mkdtempSync(path.join(tmpdir(), 'locker-readme-'));
    const serve = background(line!, {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: stack.databaseUrl,
      SMS_TRANSPORT: `file:${smsDir}/sms.jsonl`,
      LOCKER_DEV: '',
      PICKUP_CODE_SECRET: '',
    });
    try {
      await waitFor(() => serve.output.text.includes('server listening'), 60_000);
      const openapi = await fetch(`http://127.0.0.1:${port}/openapi.json`);
      expect(openapi.status).toBe(200);
      const terminal = await fetch(`http://127.0.0.1:${port}/terminal/v1/cabinet`);
      expect(terminal.status).toBe(401);
      const merchant = await fetch(`http://127.0.0.1:${port}/api/v1/shipments`);
      expect(merchant.status).toBe(401);
    } finally {
      // Ctrl+C reaches pnpm and the server alike: pnpm ends by the signal, the server cleanly.
      const { code, signal } = await serve.stop();
      expect(code === 0 || signal === 'SIGINT', serve.output.text).toBe(true);
    }
    expect(serve.output.text).toMatch(/"msg":"shutting down"/);
    await expect(fetch(`http://127.0.0.1:${port}/openapi.json`)).rejects.toThrow();
  });

  it('pnpm admin: each command does what its comment says', { timeout: 120_000 }, async () => {
    const env = { DATABASE_URL: stack.databaseUrl };
    const help = await sh(printed(/^pnpm admin --help$/)[0]!, env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/usage: pnpm admin <command>/);
    expect(help.stdout).toMatch(/shipment show/);

    const ids: Record<string, string> = {};
    const fill = (line: string) =>
      line
        .replace('--org ID', `--org ${ids.org}`)
        .replace('--id ID', `--id ${ids.terminal}`)
        .replace('--id ALERT', `--id ${ids.alert}`)
        .replace('--tracking NUMBER', `--tracking ${ids.tracking}`);
    /** The first line through pnpm exactly; the rest through the same entry in-process. */
    let throughPnpm = true;
    const admin = async (line: string): Promise<string> => {
      if (throughPnpm) {
        throughPnpm = false;
        const run = await sh(fill(line), env);
        expect(run.code, run.stderr).toBe(0);
        return run.stdout;
      }
      let stdout = '';
      let stderr = '';
      const code = await runAdmin(shellWords(fill(line)).slice(2), {
        out: (t) => (stdout += t),
        err: (t) => (stderr += t),
        env: { ...process.env, ...env },
      });
      expect(code, `${line}: ${stderr}`).toBe(0);
      return stdout;
    };
    const json = async (line: string) => {
      const out = await admin(line);
      expect(out.trim().split('\n'), line).toHaveLength(1);
      return JSON.parse(out) as Record<string, any>;
    };
    const lines = printed(/^pnpm admin (?!--help)/);
    const checked = new Set<string>();
    const expectations: [RegExp, (line: string) => Promise<void>][] = [
      [
        /org create /,
        async (l) => {
          const org = await json(l);
          expect(Object.keys(org).sort()).toEqual(['apiKey', 'id', 'name']);
          ids.org = org.id;
        },
      ],
      [
        /org create-sandbox /,
        async (l) => {
          const org = await json(l);
          expect(org).toMatchObject({ sandbox: true, apiKey: expect.stringMatching(/^sk_/) });
          expect(org.stations).toEqual([
            expect.objectContaining({ id: expect.any(String), code: expect.any(String) }),
          ]);
        },
      ],
      [
        /org list/,
        async (l) =>
          void expect((await json(l)).organizations).toContainEqual(
            expect.objectContaining({ id: ids.org }),
          ),
      ],
      [
        /org set-webhook/,
        async (l) =>
          void expect(Object.keys(await json(l)).sort()).toEqual([
            'endpointId',
            'id',
            'webhookSecret',
            'webhookUrl',
          ]),
      ],
      [
        /link keygen/,
        async (l) => {
          const key = await json(l);
          expect(Object.keys(key).sort()).toEqual(['publicKey', 'seed']);
          // LINK_SIGNING_KEY is the base64 of a 32-byte Ed25519 seed.
          expect(Buffer.from(key.seed as string, 'base64')).toHaveLength(32);
          expect(key.publicKey).toEqual(expect.any(String));
        },
      ],
      [/org rotate-key/, async (l) => void expect((await json(l)).apiKey).toMatch(/^sk_/)],
      [
        /station create/,
        async (l) => {
          const station = await json(l);
          expect(station).toMatchObject({ code: 'PR01' });
          expect(station.doors).toHaveLength(5);
          ids.stationId = station.id;
        },
      ],
      [
        /station show .*--table/,
        async (l) => {
          const out = await admin(l);
          expect(out).toMatch(/^code +PR01$/m);
          expect(out).toMatch(/^doors:\nposition/m);
          expect(out).toMatch(/^5 +- +- +in_service/m);
        },
      ],
      [/door set --/, async (l) => void expect((await json(l)).status).toBe('out_of_service')],
      // Issue 27: a station's place, booking settings, door heights.
      [
        /station set-place/,
        async (l) =>
          void expect(await json(l)).toMatchObject({
            code: 'PR01',
            latitude: 42.6629,
            longitude: 21.1655,
            stepFree: true,
            openingHours: [
              expect.objectContaining({ opens: '08:00', closes: '20:00' }),
              expect.anything(),
            ],
          }),
      ],
      [
        /station set-booking/,
        async (l) =>
          void expect(await json(l)).toEqual({
            code: 'PR01',
            reservationHours: 72,
            storageExtensionHours: 48,
          }),
      ],
      [
        /door set-height/,
        async (l) =>
          void expect(
            (await json(l)).doors.map((d: { withinReach: boolean }) => d.withinReach),
          ).toEqual([false, true, true]),
      ],
      [
        /terminal create/,
        async (l) => {
          const terminal = await json(l);
          expect(terminal).toMatchObject({
            stationCode: 'PR01',
            token: expect.any(String),
            enrolmentCode: expect.stringMatching(/^\d{4}-\d{4}-\d{2}$/),
            enrolmentExpiresAt: expect.any(String),
          });
          ids.terminal = terminal.id;
        },
      ],
      [
        /terminal list/,
        async (l) =>
          void expect((await json(l)).terminals).toContainEqual(
            expect.objectContaining({ id: ids.terminal, status: 'online', lastHeartbeatAt: null }),
          ),
      ],
      [
        /terminal set-status/,
        async (l) => void expect(await json(l)).toEqual({ id: ids.terminal, status: 'disabled' }),
      ],
      [
        /terminal revoke/,
        async (l) => void expect(await json(l)).toEqual({ id: ids.terminal, revoked: true }),
      ],
      [/courier create/, async (l) => void expect(await json(l)).toMatchObject({ number: '1001' })],
      [
        /courier list/,
        async (l) =>
          void expect((await json(l)).couriers).toContainEqual(
            expect.objectContaining({ number: '1001', active: true }),
          ),
      ],
      [
        /courier deactivate/,
        async (l) => void expect(await json(l)).toEqual({ number: '1001', active: false }),
      ],
      [
        /shipment show/,
        async (l) => {
          const shipment = await stack.shipment(ids.org!, ids.stationId!);
          ids.tracking = shipment.tracking_number;
          expect(await json(l)).toMatchObject({
            trackingNumber: shipment.tracking_number,
            status: 'booked',
            stationCode: 'PR01',
          });
        },
      ],
      [
        /shipment extend/,
        async (l) => {
          const { shipment } = await (await stack.scene('1:S')).deposit();
          ids.tracking = shipment.tracking_number;
          expect(await json(l)).toMatchObject({
            trackingNumber: shipment.tracking_number,
            extendedHours: 48,
          });
        },
      ],
      [
        /operator create/,
        async (l) => {
          const created = await json(l);
          expect(created.operator).toMatchObject({ role: 'technician', stations: ['PR01'] });
          expect(created.setup_link).toMatch(/\/ops\/setup#token=setup_/);
        },
      ],
      [
        /alert list/,
        async (l) => {
          await stack.sql`
            insert into alerts (kind, station_id, message)
            values ('door_fault', ${ids.stationId!}, 'door 3 did not open; taken out of service')`;
          const { alerts } = await json(l);
          expect(alerts).toContainEqual(
            expect.objectContaining({ kind: 'door_fault', station_code: 'PR01', status: 'open' }),
          );
          ids.alert = alerts.find((a: { station_code: string }) => a.station_code === 'PR01').id;
        },
      ],
      [
        /alert ack/,
        async (l) =>
          void expect(await json(l)).toMatchObject({
            status: 'acknowledged',
            acknowledged: { by: expect.stringMatching(/^cli:/), note: 'on my way' },
          }),
      ],
      [
        /audit list/,
        async (l) =>
          void expect((await json(l)).entries).toContainEqual(
            expect.objectContaining({
              action: 'door.service_out',
              target: 'PR01/3',
              reason: 'hinge bent',
            }),
          ),
      ],
    ];
    for (const line of lines) {
      const matching = expectations.filter(([pattern]) => pattern.test(line));
      expect(matching, line).toHaveLength(1);
      await matching[0]![1](line);
      checked.add(line);
    }
    expect(checked.size).toBe(expectations.length);
  });

  it('pnpm lint and pnpm typecheck: ESLint with the format check, and TypeScript 7’s tsc; CI runs both as printed', () => {
    // Both take minutes on two cores; CI runs them exactly as the README prints them, so
    // here the scripts are checked to be what the README says, and CI to run them.
    expect(printed(/^pnpm (lint|typecheck)/)).toEqual(['pnpm lint', 'pnpm typecheck']);
    const { scripts } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    expect(scripts.lint).toBe('eslint . && prettier --check .');
    const tsc = 'node node_modules/typescript-7/bin/tsc';
    expect(scripts.typecheck).toBe(`${tsc} -p tsconfig.json && ${tsc} -p console/tsconfig.json`);
    // The native compiler checks; ESLint's type-aware rules need TypeScript's JavaScript
    // API, which TypeScript 7 does not have: they keep the 5.x that `typescript` names.
    const version = (dir: string) =>
      (
        JSON.parse(
          readFileSync(path.join(REPO_ROOT, 'node_modules', dir, 'package.json'), 'utf8'),
        ) as { version: string }
      ).version;
    expect(version('typescript-7')).toMatch(/^7\./);
    expect(version('typescript')).toMatch(/^5\./);
    // Beside the suite there (their output and status kept for the end), each as printed:
    // one line of .ci/run, not a comment, runs the command with nothing added to it (no
    // argument after it, no `|| true`: only where its output goes, or that it runs in the
    // background).
    const ci = readFileSync(path.join(REPO_ROOT, '.ci/run'), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => !line.startsWith('#'));
    for (const command of ['pnpm lint', 'pnpm typecheck'])
      expect(
        ci.filter((line) => new RegExp(`(^|\\s)${command}\\s*($|[;&>])(?!.*\\|\\|)`).test(line))
          .length,
        command,
      ).toBe(1);
  });

  it('pnpm typecheck: every TypeScript file in the repository is in one of its tsconfigs', () => {
    // Two programs: the root's (the whole tree but the console) and the console's. A folder
    // both leave out (a new one beside src/) would be checked by nothing. ESLint's
    // type-aware rules read the same two (a file in neither is an error of its own there).
    const { scripts } = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const configs = [...(scripts.typecheck as string).matchAll(/tsc -p (\S+)/g)].map((m) => m[1]!);
    expect(configs).toEqual(['tsconfig.json', 'console/tsconfig.json']);
    const eslint = readFileSync(path.join(REPO_ROOT, 'eslint.config.js'), 'utf8');
    expect(eslint).toContain(`project: ['./tsconfig.json', './console/tsconfig.json']`);
    const checked = new Set<string>();
    for (const config of configs) {
      const file = path.join(REPO_ROOT, config);
      const parsed = ts.getParsedCommandLineOfConfigFile(
        file,
        {},
        {
          ...ts.sys,
          onUnRecoverableConfigFileDiagnostic: (d) => {
            throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
          },
        },
      );
      for (const name of parsed?.fileNames ?? []) checked.add(path.relative(REPO_ROOT, name));
    }
    const tracked = execFileSync('git', ['ls-files', '*.ts', '*.tsx'], { cwd: REPO_ROOT })
      .toString()
      .split('\n')
      .filter(Boolean);
    expect(tracked.length).toBeGreaterThan(300);
    expect(tracked.filter((file) => !checked.has(file))).toEqual([]);
  });

  it('the kiosk browser host: names the missing configuration file', async () => {
    const [line] = printed(/^pnpm --filter @locker\/kiosk kiosk /);
    expect(existsSync('/etc/parcel-locker/kiosk.json')).toBe(false);
    const run = await sh(line!);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(
      /configuration file \/etc\/parcel-locker\/kiosk\.json not found/,
    );
    expect(run.stdout + run.stderr).not.toMatch(/^\s+at /m);
  });

  it('pnpm lockctl: help, ports, and a sentence for a serial port or cabinet file not there', async () => {
    const help = sh(printed(/^pnpm lockctl --help$/)[0]!);
    const ports = sh(printed(/^pnpm lockctl ports$/)[0]!);
    const serial = printed(/--port \/dev\/ttyUSB0/);
    expect(serial.length).toBeGreaterThanOrEqual(9);
    expect(existsSync('/dev/ttyUSB0')).toBe(false);
    const runs = await Promise.all(serial.map((line) => sh(line)));
    expect((await help).stdout + (await help).stderr).toMatch(/lockctl: field diagnostics/);
    expect((await ports).code).toBe(0);
    runs.forEach((run, i) => {
      expect(run.code, serial[i]).not.toBe(0);
      // Here neither the adapter nor a cabinet file is there: a sentence for whichever it meets first.
      expect(run.stdout + run.stderr, serial[i]).toMatch(
        serial[i]!.includes('--cabinet cabinet.json')
          ? /cabinet file cabinet\.json not found|\/dev\/ttyUSB0 does not exist/
          : /\/dev\/ttyUSB0 does not exist: is the USB adapter plugged in\?/,
      );
      expect(run.stdout + run.stderr, serial[i]).not.toMatch(/^\s+at /m);
    });
  });

  it('pnpm lockctl: practise on a simulated cabinet over TCP', { timeout: 90_000 }, async () => {
    const port = String(await freePort());
    const onPort = (line: string) => line.replaceAll('4001', port);
    const [simulate] = printed(/^pnpm lockctl simulate /);
    const cabinet = background(onPort(simulate!), {});
    try {
      const status = await waitFor(async () => {
        const run = await sh(onPort(printed(/^pnpm lockctl status --tcp/)[0]!));
        return run.code === 0 ? run : undefined;
      }, 60_000);
      const doors = status.stdout.trim().split('\n');
      expect(doors).toHaveLength(48);
      expect(doors[16]).toMatch(/^door +17 +closed +empty$/);
      const open = await sh(onPort(printed(/^pnpm lockctl open --tcp/)[0]!));
      expect(open.code, open.stderr).toBe(0);
      expect(open.stdout).toMatch(/door 17 opened \(seen open \d+ ms after the pulse\)/);
      expect(open.stdout).toMatch(/door 17 was shut empty/);
    } finally {
      await cabinet.stop();
    }
  });
});
