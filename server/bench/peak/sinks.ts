import http from 'node:http';

/**
 * Local stand-ins for the SMS provider (Twilio's Messages API shape, which the server's
 * `twilio` transport speaks) and for the merchants' webhook receivers. They answer at
 * once and keep what arrived, for the invariants.
 */
export interface Sinks {
  smsUrl: string;
  webhookUrl: string;
  /** The tracking number each received SMS names, one entry per SMS. */
  smsTrackingNumbers: string[];
  webhookEvents: number;
  webhookDuplicates: number;
  close: () => Promise<void>;
}

const TRACKING_NUMBER = /\b\d{13}\b/;

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function listen(port: number, handler: http.RequestListener): Promise<http.Server> {
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

export async function startSinks(smsPort: number, webhookPort: number): Promise<Sinks> {
  const seenEvents = new Set<string>();
  const sinks: Omit<Sinks, 'close'> = {
    smsUrl: `http://127.0.0.1:${smsPort}`,
    webhookUrl: `http://127.0.0.1:${webhookPort}/hooks`,
    smsTrackingNumbers: [],
    webhookEvents: 0,
    webhookDuplicates: 0,
  };
  const sms = await listen(smsPort, (req, res) => {
    void readBody(req).then((body) => {
      const text = new URLSearchParams(body).get('Body') ?? '';
      const tn = TRACKING_NUMBER.exec(text)?.[0];
      if (tn) sinks.smsTrackingNumbers.push(tn);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SMbench"}');
    });
  });
  const hooks = await listen(webhookPort, (req, res) => {
    void readBody(req).then((body) => {
      sinks.webhookEvents++;
      // Standard Webhooks name the event in a header; the older shape in the body.
      const header = req.headers['webhook-id'] ?? req.headers['x-locker-event-id'];
      const id =
        typeof header === 'string' ? header : ((JSON.parse(body) as { id?: string }).id ?? '');
      if (seenEvents.has(id)) sinks.webhookDuplicates++;
      seenEvents.add(id);
      res.writeHead(204).end();
    });
  });
  const close = (s: http.Server) =>
    new Promise<void>((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  return Object.assign(sinks, {
    close: () => Promise.all([close(sms), close(hooks)]).then(() => {}),
  });
}
