/**
 * On the operator's workstation (the release key never leaves it):
 *
 *   pnpm --filter @locker/kiosk release keygen --out DIR
 *       the release key pair: DIR/release-key.pem (private, 0600) and
 *       DIR/release-key.pub.pem (the public half, for every kiosk's updates.publicKeyFile)
 *   pnpm --filter @locker/kiosk release sign --app DIR --version V --key release-key.pem --out DIR
 *       DIR/kiosk-V.tar.gz (the deployed kiosk, renderer built) and DIR/kiosk-V.release.json
 *       (version, size, SHA-256, Ed25519 signature), for `pnpm admin release upload`
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { makeBundle, signRelease } from '../src/updater/release';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    out: { type: 'string' },
    app: { type: 'string' },
    version: { type: 'string' },
    key: { type: 'string' },
  },
});

const need = (name: keyof typeof values): string => {
  const value = values[name];
  if (!value) throw new Error(`--${name} is needed (see the top of scripts/release.ts)`);
  return value;
};

async function main(): Promise<void> {
  const out = need('out');
  mkdirSync(out, { recursive: true });
  if (positionals[0] === 'keygen') {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    writeFileSync(
      path.join(out, 'release-key.pem'),
      privateKey.export({ type: 'pkcs8', format: 'pem' }),
      { mode: 0o600, flag: 'wx' },
    );
    writeFileSync(
      path.join(out, 'release-key.pub.pem'),
      publicKey.export({ type: 'spki', format: 'pem' }),
    );
    process.stdout.write(
      `${JSON.stringify({ privateKey: path.join(out, 'release-key.pem'), publicKey: path.join(out, 'release-key.pub.pem') })}\n`,
    );
    return;
  }
  if (positionals[0] !== 'sign')
    throw new Error('usage: release keygen|sign … (see scripts/release.ts)');
  const version = need('version');
  const bundle = path.join(out, `kiosk-${version}.tar.gz`);
  await makeBundle(need('app'), bundle);
  const manifest = await signRelease(version, bundle, readFileSync(need('key'), 'utf8'));
  const manifestFile = path.join(out, `kiosk-${version}.release.json`);
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 2) + '\n');
  process.stdout.write(
    `${JSON.stringify({ bundle, manifest: manifestFile, size: manifest.size, sha256: manifest.sha256 })}\n`,
  );
}

main().catch((error: Error) => {
  process.stderr.write(`release: ${error.message}\n`);
  process.exit(1);
});
