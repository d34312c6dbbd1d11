import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestStack } from '../../test/harness';

// The operator console as the server serves it under /ops/: the page for every path of
// the console, its hashed assets cached, its CSP, and /ops/v1 left to the API.

const built = mkdtempSync(path.join(tmpdir(), 'console-dist-'));
mkdirSync(path.join(built, 'assets'));
writeFileSync(path.join(built, 'index.html'), '<!doctype html><div id="root"></div>');
writeFileSync(path.join(built, 'assets/index-abc123.js'), 'console.log(1)');

let stack: TestStack;
let missing: TestStack;
beforeAll(async () => {
  stack = await startTestServer({ opsConsoleDir: built });
  missing = await startTestServer({ opsConsoleDir: path.join(built, 'nowhere') });
});
afterAll(async () => {
  await stack?.close();
  await missing?.close();
});

const get = (s: TestStack, p: string) => fetch(s.url + p, { redirect: 'manual' });

describe('the console under /ops/', () => {
  it('answers the page for any of its paths, never cached, with a strict CSP', async () => {
    for (const p of ['/ops/', '/ops/fleet', '/ops/stations/PR01', '/ops/setup']) {
      const answer = await get(stack, p);
      expect(answer.status, p).toBe(200);
      expect(await answer.text()).toContain('<div id="root">');
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.headers.get('content-security-policy')).toMatch(
        /default-src 'none'; script-src 'self'.*frame-ancestors 'none'/,
      );
    }
    const bare = await get(stack, '/ops');
    expect([bare.status, bare.headers.get('location')]).toEqual([302, '/ops/']);
  });

  it('caches hashed assets for a year and finds nothing outside its folder', async () => {
    const asset = await get(stack, '/ops/assets/index-abc123.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
    expect((await get(stack, '/ops/assets/nope.js')).status).toBe(404);
    expect((await get(stack, '/ops/assets/..%2f..%2findex.html')).status).toBe(404);
    expect((await get(stack, '/ops/assets/%2e%2e/%2e%2e/package.json')).status).toBe(404);
  });

  it('leaves /ops/v1 to the API, and says how to build the console when it is missing', async () => {
    const api = await get(stack, '/ops/v1/session');
    expect(api.status).toBe(401);
    expect(api.headers.get('content-type')).toMatch(/problem\+json/);
    const none = await get(missing, '/ops/');
    expect(none.status).toBe(503);
    expect(await none.text()).toMatch(/pnpm --filter @locker\/console build/);
  });
});
