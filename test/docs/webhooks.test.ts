/**
 * docs/webhooks.md's worked example is right: the receiver code it prints, taken from the
 * page itself, accepts the example's header and body and refuses tampered ones, and the
 * example's signature is what the server's signing scheme gives.
 */
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '@locker/server';

const page = readFileSync(path.join(REPO_ROOT, 'docs/webhooks.md'), 'utf8');

function fenced(after: string, language = ''): string {
  const start = page.indexOf(after);
  expect(start, after).toBeGreaterThan(-1);
  const open = page.indexOf('```' + language + '\n', start);
  const close = page.indexOf('\n```', open + 4);
  return page.slice(page.indexOf('\n', open) + 1, close);
}

describe('docs/webhooks.md', () => {
  it("worked example verifies with the page's own receiver code", async () => {
    const secret = /secret `(whsec_\w+)`/.exec(page)![1]!;
    const timestamp = /timestamp `(\d+)`/.exec(page)![1]!;
    const body = fenced('raw body (one line');
    const header = fenced('the header is').replace(/^X-Locker-Signature: /, '');
    expect(header).toMatch(new RegExp(`^t=${timestamp},v1=[0-9a-f]{64}$`));
    const mac = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
    expect(header).toBe(`t=${timestamp},v1=${mac}`);

    // The page's function, without the example server that listens on a port.
    const code = fenced('a receiver checks it like this', 'js');
    const fn = /export function verifyLockerSignature[\s\S]*?\n}\n/.exec(code)![0];
    const module = path.join(mkdtempSync(path.join(tmpdir(), 'webhook-doc-')), 'verify.mjs');
    writeFileSync(
      module,
      `import { createHmac, timingSafeEqual } from 'node:crypto';\nconst TOLERANCE_SECONDS = 300;\n${fn}`,
    );
    const { verifyLockerSignature } = (await import(pathToFileURL(module).href)) as {
      verifyLockerSignature: (s: string, h: string, b: string, now?: number) => boolean;
    };
    const now = Number(timestamp) * 1000 + 60_000;
    expect(verifyLockerSignature(secret, header, body, now)).toBe(true);
    expect(verifyLockerSignature(secret, header, body.replace('collected', 'collectee'), now)).toBe(
      false,
    );
    expect(verifyLockerSignature('whsec_other', header, body, now)).toBe(false);
    expect(verifyLockerSignature(secret, header, body, Number(timestamp) * 1000 + 301_000)).toBe(
      false,
    );
  });
});
