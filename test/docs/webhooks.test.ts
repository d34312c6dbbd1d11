/**
 * docs/webhooks.md's worked example is right: the `standardwebhooks` package (a verifier
 * nobody here wrote) accepts the example's headers and body, the page's own library-free
 * receiver code agrees, and the example's signature is what the server signs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '@locker/server';
import { sign } from '../../server/src/webhooks/signature';

const page = readFileSync(path.join(REPO_ROOT, 'docs/webhooks.md'), 'utf8');

function fenced(after: string, language = ''): string {
  const start = page.indexOf(after);
  expect(start, after).toBeGreaterThan(-1);
  const open = page.indexOf('```' + language + '\n', start);
  const close = page.indexOf('\n```', open + 4);
  return page.slice(page.indexOf('\n', open) + 1, close);
}

describe('docs/webhooks.md', () => {
  it('worked example verifies with standardwebhooks and with the page’s own receiver code', async () => {
    const secret = /secret `(whsec_[A-Za-z0-9+/=]+)`/.exec(page)![1]!;
    const id = /the id `([0-9a-f-]{36})`/.exec(page)![1]!;
    const timestamp = /timestamp `(\d+)`/.exec(page)![1]!;
    const body = fenced('raw body (one line');
    const signature = fenced('the header is').replace(/^webhook-signature: /, '');
    expect(signature).toBe(sign(secret, id, Number(timestamp), body));
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': timestamp,
      'webhook-signature': signature,
    };
    const now = Number(timestamp) * 1000 + 60_000;
    vi.useFakeTimers({ now, toFake: ['Date'] });
    try {
      expect(new Webhook(secret).verify(body, headers)).toMatchObject({ id });
      expect(() =>
        new Webhook(secret).verify(body.replace('collected', 'collectee'), headers),
      ).toThrow();
    } finally {
      vi.useRealTimers();
    }

    // The page's function, taken from the page.
    const code = fenced('Without a library', 'js');
    const module = path.join(mkdtempSync(path.join(tmpdir(), 'webhook-doc-')), 'verify.mjs');
    writeFileSync(module, code);
    const { verifyLockerWebhook } = (await import(pathToFileURL(module).href)) as {
      verifyLockerWebhook: (s: string, h: object, b: string, now?: number) => boolean;
    };
    expect(verifyLockerWebhook(secret, headers, body, now)).toBe(true);
    const rolled = { ...headers, 'webhook-signature': `v1,AAAA ${signature}` };
    expect(verifyLockerWebhook(secret, rolled, body, now)).toBe(true);
    expect(verifyLockerWebhook(secret, headers, body.replace('collected', 'collectee'), now)).toBe(
      false,
    );
    expect(verifyLockerWebhook('whsec_b3RoZXI=', headers, body, now)).toBe(false);
    expect(verifyLockerWebhook(secret, headers, body, Number(timestamp) * 1000 + 301_000)).toBe(
      false,
    );
  });
});
