import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';

export interface PostOptions {
  /** Kept connections, one agent a protocol. */
  agents: { 'http:': http.Agent; 'https:': https.Agent };
  /** The socket's own name resolution (a destination policy's check), if any. */
  lookup?: LookupFunction | undefined;
  /** From the request to an open connection (the name's resolution included). */
  connectTimeoutMs: number;
  /** From the request to the whole answer. */
  totalTimeoutMs: number;
}

/** What a receiver (a merchant's endpoint, the SMS provider) is given unless told otherwise. */
export const DEFAULT_POST_TIMEOUTS = { connectTimeoutMs: 3000, totalTimeoutMs: 10_000 };

/** Keep-alive agents for one kind of destination. */
export function keptAgents(): PostOptions['agents'] {
  return {
    'http:': new http.Agent({ keepAlive: true }),
    'https:': new https.Agent({ keepAlive: true }),
  };
}

/** A POST that did not get an answer in time: what a hanging receiver costs at most. */
export class SendTimeout extends Error {
  override name = 'SendTimeout';
}

/**
 * POSTs `body` to `url` and answers the status once the answer has been read (and thrown
 * away). node:http rather than fetch: a fetch, with its streams and its abort signal, left
 * ≈10 kB a request that outlived the young generation (a heap profile of the peak hour: the
 * SMS transport's fetches were the server's largest source of garbage for the full
 * collections), and cost twice the CPU. Throws SendTimeout or the network's own error.
 */
export function post(
  url: URL,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<{ status: number; headers: http.IncomingHttpHeaders }> {
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  return new Promise((resolve, reject) => {
    const request = (protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: options.agents[protocol],
      ...(options.lookup ? { lookup: options.lookup } : {}),
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    });
    const fail = (error: Error) => {
      clearTimeout(connectTimer);
      clearTimeout(totalTimer);
      request.destroy();
      reject(error);
    };
    const connectTimer = setTimeout(
      () => fail(new SendTimeout(`no connection within ${options.connectTimeoutMs} ms`)),
      options.connectTimeoutMs,
    );
    const totalTimer = setTimeout(
      () => fail(new SendTimeout(`no answer within ${options.totalTimeoutMs} ms`)),
      options.totalTimeoutMs,
    );
    request.on('socket', (socket: Socket) => {
      // A kept connection is open already; a new one says when it is.
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    request.on('response', (response) => {
      clearTimeout(connectTimer);
      response.on('error', fail);
      response.on('end', () => {
        clearTimeout(totalTimer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers });
      });
      response.resume();
    });
    request.on('error', (error) => fail(described(error)));
    request.end(body);
  });
}

/**
 * A name with several addresses, every one refused, fails with Node's AggregateError (the
 * addresses tried one after another), whose message is empty: the log and the outbox's
 * `last_error` would say nothing. Its addresses' errors are its message.
 */
function described(error: Error): Error {
  if (!(error instanceof AggregateError) || error.message) return error;
  const causes = (error.errors as unknown[]).map((e) =>
    e instanceof Error ? e.message : String(e),
  );
  return Object.assign(new Error(causes.join('; ') || 'connection failed', { cause: error }), {
    code: (error as NodeJS.ErrnoException).code,
  });
}
