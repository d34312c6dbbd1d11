import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Adds a field to every object of a JSON value, at every depth. */
function extend(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(extend);
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, extend(v)]);
    return { ...Object.fromEntries(entries), added_by_a_newer_service: { since: 'v1.1' } };
  }
  return value;
}

export interface ExtendingProxy {
  url: string;
  /** Correlation ids the kiosk sent, by request path. */
  seen: { path: string; correlationId: string | undefined }[];
  /** The next answer to `path` is replaced by one the kiosk cannot use. */
  breakNext(path: string): void;
  close(): Promise<void>;
}

/**
 * A newer service, as the kiosk would meet it: the real server behind a proxy that adds
 * a field to every object of every JSON answer (problem bodies included).
 */
export async function extendingProxy(target: string): Promise<ExtendingProxy> {
  const seen: ExtendingProxy['seen'] = [];
  const broken = new Set<string>();
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length'),
      ) as Record<string, string>;
      const path = req.url ?? '/';
      seen.push({ path, correlationId: headers['x-correlation-id'] });
      const answer = await fetch(new URL(path, target), {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      const out: Record<string, string> = {};
      answer.headers.forEach((v, k) => {
        if (!['content-length', 'content-encoding', 'transfer-encoding'].includes(k)) out[k] = v;
      });
      let body = await answer.text();
      if ((answer.headers.get('content-type') ?? '').includes('json') && body) {
        body = JSON.stringify(extend(JSON.parse(body)));
        if (broken.delete(path)) body = JSON.stringify({ ok: 'perhaps', door: 'the blue one' });
      }
      res.writeHead(answer.status, out).end(body);
    })().catch(() => res.writeHead(502).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    breakNext: (path) => broken.add(path),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
