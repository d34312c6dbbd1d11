import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeKioskConfig } from '../core/config';
import { digestOf, makeBundle, signRelease, signedByReleaseKey, unpackBundle } from './release';
import { Slots } from './slots';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const LAUNCHER = path.join(ROOT, 'kiosk/src/updater/launcher.ts');

function keys() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    private: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

async function bundle() {
  const dir = mkdtempSync(path.join(tmpdir(), 'kiosk-release-'));
  mkdirSync(path.join(dir, 'app/src/hosts'), { recursive: true });
  writeFileSync(path.join(dir, 'app/src/hosts/browser.ts'), 'export {};\n');
  const file = path.join(dir, 'kiosk.tar.gz');
  await makeBundle(path.join(dir, 'app'), file);
  return { dir, file };
}

describe('a release and its signature', () => {
  it('verifies with the release key only, and not once any signed field changes', async () => {
    const release = keys();
    const { dir, file } = await bundle();
    const manifest = await signRelease('3.1.0', file, release.private);
    expect(manifest).toMatchObject(await digestOf(file));
    expect(signedByReleaseKey(manifest, release.public)).toBe(true);
    expect(signedByReleaseKey(manifest, keys().public)).toBe(false);
    expect(signedByReleaseKey({ ...manifest, version: '3.1.1' }, release.public)).toBe(false);
    expect(signedByReleaseKey({ ...manifest, size: manifest.size + 1 }, release.public)).toBe(
      false,
    );
    const otherDigest = manifest.sha256.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    expect(signedByReleaseKey({ ...manifest, sha256: otherDigest }, release.public)).toBe(false);
    expect(signedByReleaseKey({ ...manifest, signature: 'AAAA' }, release.public)).toBe(false);
    // Not an Ed25519 key at all: refused, not thrown.
    expect(signedByReleaseKey(manifest, 'not a key')).toBe(false);
    const out = path.join(dir, 'out');
    mkdirSync(out);
    await unpackBundle(file, out);
    expect(readFileSync(path.join(out, 'src/hosts/browser.ts'), 'utf8')).toBe('export {};\n');
  });
});

describe('kiosk-launch', () => {
  it('goes back to the running slot by itself when a release exits three times before healthy', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'kiosk-launch-'));
    const configFile = path.join(dir, 'kiosk.json');
    // Nothing listens on the discard port: the installed kiosk runs offline, as it can.
    writeKioskConfig(configFile, {
      serverUrl: 'http://127.0.0.1:9',
      deviceToken: 'launcher-test-token-0123456789',
      lock: { kind: 'simulator', boards: 1 },
      dataDir: './data',
      updates: { dir: './updates', publicKeyFile: './release.pub.pem', healthSeconds: 600 },
    });
    const slots = new Slots(path.join(dir, 'updates'));
    mkdirSync(path.join(slots.slotDir('a'), 'src/hosts'), { recursive: true });
    writeFileSync(
      path.join(slots.slotDir('a'), 'package.json'),
      JSON.stringify({ type: 'module' }),
    );
    writeFileSync(path.join(slots.slotDir('a'), 'src/hosts/browser.ts'), 'process.exit(3);\n');
    slots.write({
      active: 'base',
      versions: { a: '9.9.9' },
      trial: { slot: 'a', version: '9.9.9', since: Date.now(), crashes: 0 },
      failed: [],
    });
    const child = spawn(process.execPath, ['--import', 'tsx', LAUNCHER, configFile], {
      cwd: ROOT,
      env: { ...process.env, KIOSK_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    try {
      await expect.poll(() => output, { timeout: 40_000 }).toMatch(/kiosk ready at/);
      expect(output.match(/starting slot a \(9\.9\.9\)/g)).toHaveLength(3);
      expect(output).toContain('starting slot base');
      expect(slots.read()).toMatchObject({
        active: 'base',
        trial: null,
        failed: [{ version: '9.9.9', reason: 'exited 3 times before healthy', reported: false }],
      });
    } finally {
      const exited = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
