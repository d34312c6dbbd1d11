import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Middleware } from 'koa';

/** Where shops load the locker picker from (docs/merchant-api.md, "The locker picker"). */
export const PICKER_PATH = '/picker/v1/locker-picker.js';

/**
 * A shop's page caches it for an hour and then revalidates (ETag): a fix reaches checkout
 * pages within the hour, and a revalidation costs a 304. `v1` changes only if the
 * element's attributes or event change incompatibly.
 */
export const PICKER_CACHE_CONTROL = 'public, max-age=3600, stale-while-revalidate=86400';

interface Script {
  body: string;
  etag: string;
}

let built: Promise<Script> | undefined;

/** The element, bundled once per process into one classic script (no imports, no eval). */
export function pickerScript(): Promise<Script> {
  built ??= build({
    entryPoints: [fileURLToPath(new URL('./lockerPicker.ts', import.meta.url))],
    bundle: true,
    format: 'iife',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
    banner: { js: '/* <locker-picker>, parcel-locker (Apache-2.0). */' },
  }).then(
    (result) => {
      const body = result.outputFiles[0]!.text;
      const hash = createHash('sha256').update(body).digest('base64url').slice(0, 27);
      return { body, etag: `"${hash}"` };
    },
    (error: unknown) => {
      built = undefined;
      throw error;
    },
  );
  return built;
}

/**
 * GET /picker/v1/locker-picker.js: the <locker-picker> element, for any shop's page. Any
 * origin may load it, as a classic or a module script (modules are fetched with CORS),
 * and under Cross-Origin-Embedder-Policy; it holds nothing secret.
 */
export function servePicker(): Middleware {
  return async (ctx, next) => {
    if (ctx.path !== PICKER_PATH || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    const script = await pickerScript();
    ctx.set({
      'Cache-Control': PICKER_CACHE_CONTROL,
      ETag: script.etag,
      'Access-Control-Allow-Origin': '*',
      'Cross-Origin-Resource-Policy': 'cross-origin',
      'X-Content-Type-Options': 'nosniff',
    });
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = script.body;
  };
}
