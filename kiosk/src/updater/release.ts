import { createHash, createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { releaseSigningText, type ReleaseManifest } from '@locker/shared';
import * as tar from 'tar';

/**
 * A kiosk release: the deployed kiosk (`pnpm --filter @locker/kiosk deploy --prod`, the
 * renderer built) as one tar.gz, and its manifest signed with the operator's release key
 * (Ed25519, node:crypto). The kiosk holds only the public key.
 */
export async function makeBundle(appDir: string, file: string): Promise<void> {
  await tar.c({ gzip: { level: 9 }, file, cwd: appDir, portable: true }, ['.']);
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

/** Unpacks a bundle into an empty folder. */
export async function unpackBundle(file: string, dir: string): Promise<void> {
  await tar.x({ file, cwd: dir, strict: true, preservePaths: false });
}
