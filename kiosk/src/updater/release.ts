import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { execFile } from 'node:child_process';
import { createReadStream, statSync } from 'node:fs';
import { promisify } from 'node:util';
import { releaseSigningText, type ReleaseManifest } from '@locker/shared';

const run = promisify(execFile);

/**
 * A kiosk release: the deployed kiosk (`pnpm --filter @locker/kiosk deploy --prod`, the
 * renderer built) as one tar.gz, and its manifest signed with the operator's release key
 * (Ed25519, node:crypto). The kiosk holds only the public key.
 *
 * Packed and unpacked by GNU tar (every Debian has it): the npm `tar` package (7.5)
 * stopped silently part-way through the deployed kiosk's 10,000 files when packing, and
 * refused pnpm's relative links between packages when unpacking.
 */
export async function makeBundle(appDir: string, file: string): Promise<void> {
  await run('tar', [
    '--create',
    '--gzip',
    '--file',
    file,
    '--directory',
    appDir,
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '.',
  ]);
}

export async function digestOf(file: string): Promise<{ sha256: string; size: number }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return { sha256: hash.digest('hex'), size: statSync(file).size };
}

/** The manifest of a bundle, signed with the release key (PEM, PKCS#8). */
export async function signRelease(
  version: string,
  bundleFile: string,
  privateKeyPem: string,
): Promise<ReleaseManifest> {
  const { sha256, size } = await digestOf(bundleFile);
  const text = releaseSigningText({ version, sha256, size });
  const signature = sign(null, Buffer.from(text), createPrivateKey(privateKeyPem));
  return { version, sha256, size, signature: signature.toString('base64') };
}

/** Whether the release key signed exactly this manifest. */
export function signedByReleaseKey(manifest: ReleaseManifest, publicKeyPem: string): boolean {
  try {
    const key = createPublicKey(publicKeyPem);
    if (key.asymmetricKeyType !== 'ed25519') return false;
    return verify(
      null,
      Buffer.from(releaseSigningText(manifest)),
      key,
      Buffer.from(manifest.signature, 'base64'),
    );
  } catch {
    return false;
  }
}

/**
 * Unpacks a bundle (its signature and digest checked first) into an empty folder, files
 * owned by the kiosk's user; GNU tar keeps every member inside it (no absolute names, no
 * `..`).
 */
export async function unpackBundle(file: string, dir: string): Promise<void> {
  await run('tar', ['--extract', '--gzip', '--file', file, '--directory', dir, '--no-same-owner']);
}
