import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { BridgeArgumentError, dispatch } from '../bridge/dispatch';
import { KIOSK_METHODS, type KioskApi, type KioskMethod, type KioskState } from '../bridge/api';
import { CONTENT_SECURITY_POLICY } from './csp';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface BrowserHost {
  url: string;
  close(): Promise<void>;
}

type Core = KioskApi & {
  on(event: 'state', listener: (state: KioskState) => void): unknown;
  off(event: 'state', listener: (state: KioskState) => void): unknown;
};

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
      if (body.length > 65_536) req.destroy();
    });
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/** 400 with the reason: a request the screen should never have sent. */
function refuse(res: http.ServerResponse, reason: string): void {
  res
    .writeHead(400, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: 'bad_request', reason }));
}

/**
 * The second host of the kiosk core (Electron's main process is the first): serves the
 * built renderer on loopback and the typed bridge as `POST /bridge/<method>` plus a
 * server-sent stream of state at `/bridge/events`.
 */
export async function startBrowserHost(
  core: Core,
  rendererDir: string,
  port = 0,
): Promise<BrowserHost> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (url.pathname === '/bridge/events') {
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-store',
          connection: 'keep-alive',
        });
        const send = (state: KioskState) => res.write(`data: ${JSON.stringify(state)}\n\n`);
        send(await core.getState());
        core.on('state', send);
        req.on('close', () => core.off('state', send));
        return;
      }
      const method = url.pathname.startsWith('/bridge/')
        ? (url.pathname.slice(8) as KioskMethod)
        : undefined;
      if (method) {
        if (req.method !== 'POST' || !KIOSK_METHODS.includes(method))
          return void res.writeHead(404).end();
        // A JSON content type forces a CORS preflight, which this host never answers: a web
        // page elsewhere cannot drive the doors with a simple cross-site form post.
        if (!(req.headers['content-type'] ?? '').startsWith('application/json')) {
          return void res.writeHead(415).end();
        }
        let args: unknown;
        try {
          args = JSON.parse((await readBody(req)) || '[]');
          if (!Array.isArray(args)) throw new BridgeArgumentError('arguments must be a JSON array');
        } catch (error) {
          return void refuse(res, error instanceof Error ? error.message : 'unreadable body');
        }
        let result: unknown;
        try {
          result = await dispatch(core, method, args as unknown[]);
        } catch (error) {
          if (error instanceof BridgeArgumentError) return void refuse(res, error.message);
          throw error;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
        return;
      }
      const file = path.join(
        rendererDir,
        path.normalize(url.pathname === '/' ? '/index.html' : url.pathname),
      );
      if (!file.startsWith(rendererDir)) return void res.writeHead(404).end();
      try {
        const content = await readFile(file);
        res
          .writeHead(200, {
            'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
          })
          .end(content);
      } catch {
        res.writeHead(404).end();
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
