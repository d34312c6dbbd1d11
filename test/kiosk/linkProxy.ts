import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export interface LinkProxy {
  url: string;
  /** What the service sent the kiosk over the link, in order (commands included). */
  fromService: Record<string, unknown>[];
  /** What the kiosk sent the service over the link. */
  fromKiosk: Record<string, unknown>[];
  /** Sends the kiosk a message on its link as if the service had sent it. */
  inject(message: unknown): void;
  /** Whether the kiosk's link runs through here now. */
  readonly linked: boolean;
  close(): Promise<void>;
}

/**
 * Someone in the middle of the kiosk's connection: HTTP passes through to the real
 * service untouched, and the live link is relayed both ways, recorded, with the power to
 * send the kiosk anything (a forged, tampered or replayed command).
 */
export async function linkProxy(target: string): Promise<LinkProxy> {
  const fromService: Record<string, unknown>[] = [];
  const fromKiosk: Record<string, unknown>[] = [];
  let kioskSide: WebSocket | undefined;
  const sockets = new Set<WebSocket>();
  const server = http.createServer((req, res) => {
    const upstream = http.request(
      new URL(req.url ?? '/', target),
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  const wss = new WebSocketServer({ noServer: true, handleProtocols: (p) => [...p][0] ?? false });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', target);
    url.protocol = 'ws:';
    const service = new WebSocket(url, req.headers['sec-websocket-protocol']?.split(','), {
      headers: { authorization: req.headers.authorization ?? '' },
    });
    service.on('error', () => socket.destroy());
    service.on('unexpected-response', (_r, res) => {
      socket.end(`HTTP/1.1 ${res.statusCode} Refused\r\nConnection: close\r\n\r\n`);
    });
    service.on('open', () =>
      wss.handleUpgrade(req, socket, head, (kiosk) => {
        kioskSide = kiosk;
        sockets.add(kiosk).add(service);
        service.on('message', (data: Buffer) => {
          fromService.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
          kiosk.send(data.toString('utf8'));
        });
        kiosk.on('message', (data: Buffer) => {
          fromKiosk.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
          service.send(data.toString('utf8'));
        });
        service.on('ping', () => kiosk.ping());
        kiosk.on('pong', () => service.pong());
        service.on('close', () => kiosk.terminate());
        kiosk.on('close', () => service.terminate());
        kiosk.on('error', () => service.terminate());
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    fromService,
    fromKiosk,
    inject: (message) => kioskSide?.send(JSON.stringify(message)),
    get linked() {
      return kioskSide?.readyState === WebSocket.OPEN;
    },
    close: async () => {
      sockets.forEach((s) => s.terminate());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
