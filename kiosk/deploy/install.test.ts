import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  lstatSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(HERE, 'install.sh');
const UNITS = ['parcel-locker-kiosk.service', 'parcel-locker-kiosk-session.service'];

const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

function scratchRoot(): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'kiosk-root-'));
  roots.push(root);
  return root;
}

/** The public half of a release key, as the operator's `release keygen` writes it. */
function releaseKey(): string {
  const file = path.join(scratchRoot(), 'release-key.pub.pem');
  writeFileSync(
    file,
    generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }),
  );
  return file;
}

async function install(root: string, ...args: string[]) {
  return run('bash', [SCRIPT, '--root', root, ...args]);
}

/** name → id, from the scratch root's own passwd or group. */
function idsOf(root: string, file: 'passwd' | 'group'): Map<string, number> {
  return new Map(
    readFileSync(path.join(root, 'etc', file), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split(':'))
      .map((f) => [f[0]!, Number(f[2])]),
  );
}

// What the kiosk's files must be: the token's folder closed to everyone but the kiosk,
// the configuration readable by the kiosk's group and no one else, programs root's.
const EXPECTED = [
  '0750 root:locker-kiosk /etc/parcel-locker',
  '0700 locker-kiosk:locker-kiosk /var/lib/parcel-locker-kiosk',
  '0700 locker-kiosk:locker-kiosk /var/lib/parcel-locker-kiosk/session',
  '0755 root:root /opt/parcel-locker-kiosk',
  '0755 root:root /opt/parcel-locker-kiosk/bin',
  '0640 root:locker-kiosk /etc/parcel-locker/kiosk.json',
  '0644 root:root /etc/parcel-locker/release-key.pub.pem',
  '0755 root:root /opt/parcel-locker-kiosk/bin/wait-for-kiosk',
  '0755 root:root /opt/parcel-locker-kiosk/bin/lockctl',
  '0755 root:root /opt/parcel-locker-kiosk/bin/kiosk-enrol',
  '0644 root:root /etc/systemd/system/parcel-locker-kiosk.service',
  '0644 root:root /etc/systemd/system/parcel-locker-kiosk-session.service',
];

describe('kiosk/deploy/install.sh into a scratch root', () => {
  const root = scratchRoot();

  it('creates the kiosk user, its folders and files with their modes and owners', async () => {
    const { stdout } = await install(
      root,
      '--server-url',
      'https://lockers.test',
      '--lock',
      'serial:/dev/serial/by-id/usb-FTDI_RS485-if00-port0',
      '--release-key',
      releaseKey(),
    );
    expect(stdout).toMatch(/lockctl map/);
    const users = idsOf(root, 'passwd');
    const groups = idsOf(root, 'group');
    expect(users.has('locker-kiosk')).toBe(true);
    const passwd = readFileSync(path.join(root, 'etc/passwd'), 'utf8');
    expect(passwd).toMatch(
      /^locker-kiosk:x:\d+:\d+:[^:]*:\/var\/lib\/parcel-locker-kiosk:\/usr\/sbin\/nologin$/m,
    );
    // The serial adapter's group.
    expect(readFileSync(path.join(root, 'etc/group'), 'utf8')).toMatch(
      /^dialout:x:\d+:locker-kiosk$/m,
    );

    const manifest = readFileSync(
      path.join(root, 'opt/parcel-locker-kiosk/install-manifest'),
      'utf8',
    )
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(manifest).toEqual(EXPECTED);
    const asRoot = process.getuid?.() === 0;
    for (const line of manifest) {
      const [mode, owner, file] = line.split(' ') as [string, string, string];
      const stat = statSync(path.join(root, file));
      expect((stat.mode & 0o7777).toString(8).padStart(4, '0'), file).toBe(mode);
      if (asRoot) {
        const [user, group] = owner.split(':') as [string, string];
        expect(stat.uid, `${file} owner`).toBe(user === 'root' ? 0 : users.get(user));
        expect(stat.gid, `${file} group`).toBe(group === 'root' ? 0 : groups.get(group));
      }
    }
  });

  it('writes a configuration that holds no token and points at the kiosk-only credentials', () => {
    const config = JSON.parse(
      readFileSync(path.join(root, 'etc/parcel-locker/kiosk.json'), 'utf8'),
    );
    expect(config).toEqual({
      serverUrl: 'https://lockers.test',
      credentialsFile: '/var/lib/parcel-locker-kiosk/credentials.json',
      lock: {
        kind: 'serial',
        path: '/dev/serial/by-id/usb-FTDI_RS485-if00-port0',
        baudRate: 19200,
      },
      cabinetFile: 'cabinet.json',
      dataDir: '/var/lib/parcel-locker-kiosk',
      updates: {
        dir: '/var/lib/parcel-locker-kiosk/updates',
        publicKeyFile: 'release-key.pub.pem',
      },
    });
    expect(JSON.stringify(config)).not.toMatch(/deviceToken|tdev_/);
  });

  it('enables both units on boot', () => {
    const wanted: [string, string][] = [
      ['multi-user.target.wants', UNITS[0]!],
      ['graphical.target.wants', UNITS[1]!],
    ];
    for (const [target, unit] of wanted) {
      const link = path.join(root, 'etc/systemd/system', target, unit);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
      expect(readlinkSync(link)).toBe(`/etc/systemd/system/${unit}`);
    }
  });

  it('run again, keeps the configuration as the technician left it and changes nothing else', async () => {
    const file = path.join(root, 'etc/parcel-locker/kiosk.json');
    const edited = readFileSync(file, 'utf8').replace('lockers.test', 'lockers2.test');
    writeFileSync(file, edited);
    const passwd = readFileSync(path.join(root, 'etc/passwd'), 'utf8');
    await install(root);
    expect(readFileSync(file, 'utf8')).toBe(edited);
    expect(readFileSync(path.join(root, 'etc/passwd'), 'utf8')).toBe(passwd);
    expect((statSync(file).mode & 0o777).toString(8)).toBe('640');
  });

  it('refuses a bad option with one sentence and exit status 2, installing nothing', async () => {
    const empty = scratchRoot();
    for (const args of [
      ['--server-url', 'https://lockers.test', '--lock', 'usb0'],
      ['--server-url', 'ftp://lockers.test'],
      ['--lock', 'serial:/dev/ttyUSB0'],
      ['--server-url', 'https://lockers.test', '--frobnicate'],
    ]) {
      const failed = await install(empty, ...args).then(
        () => undefined,
        (e: { code: number; stderr: string }) => e,
      );
      expect(failed?.code, args.join(' ')).toBe(2);
      expect(failed?.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(() => statSync(path.join(empty, 'etc/passwd'))).toThrow();
  });

  it('installs unit files systemd-analyze verify accepts', async () => {
    // verify wants every command a unit runs to exist: point the kiosk's own folder at the
    // scratch root's copy (node, chromium and cage are the machine's own).
    const units = UNITS.map((unit) => {
      const copy = path.join(root, unit);
      writeFileSync(
        copy,
        readFileSync(path.join(root, 'etc/systemd/system', unit), 'utf8').replaceAll(
          '/opt/parcel-locker-kiosk/',
          `${root}/opt/parcel-locker-kiosk/`,
        ),
      );
      return copy;
    });
    const { stderr } = await run('systemd-analyze', ['verify', ...units]);
    expect(stderr).toBe('');
  });
});
