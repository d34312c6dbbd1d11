import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction, type Socket } from 'node:net';
import { bareHost, checkedAddresses, type DestinationPolicy } from './address';

export interface SendOptions {
  destination: DestinationPolicy;
  /** From the request to an open connection (the name's resolution included). */
  connectTimeoutMs: number;
  /** From the request to the whole answer. */
  totalTimeoutMs: number;
}

export const DEFAULT_SEND_TIMEOUTS = { connectTimeoutMs: 3000, totalTimeoutMs: 10_000 };

// Connections are kept for the next delivery to the same endpoint; each was opened to an
// address checked when it was opened, under one policy: each policy has its own.
const agentsOf = new WeakMap<DestinationPolicy, { 'http:': http.Agent; 'https:': https.Agent }>();
function agents(policy: DestinationPolicy) {
  let found = agentsOf.get(policy);
  if (!found) {
    found = {
      'http:': new http.Agent({ keepAlive: true }),
      'https:': new https.Agent({ keepAlive: true }),
    };
    agentsOf.set(policy, found);
  }
  return found;
}

/** A delivery that did not get an answer in time: what a hanging receiver costs at most. */
export class SendTimeout extends Error {
  override name = 'SendTimeout';
}

/**
 * POSTs `body` to `target` and answers the status once the answer has been read (and
 * thrown away). The connection goes only to addresses the destination policy allows: the
 * socket's own `lookup` resolves the name, checks every address and hands over exactly
 * those, so no second resolution can send it elsewhere; an address written in the URL is
 * checked before anything is sent. Throws RefusedDestination, SendTimeout or the network's
 * own error.
 */
export async function postWebhook(
  target: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<{ status: number; retryAfter: string | undefined }> {
  const url = new URL(target);
  const host = bareHost(url);
  // A literal address is never looked up by the socket: check it here.
  if (isIP(host)) await checkedAddresses(host, options.destination);
  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    checkedAddresses(hostname, options.destination).then(
      (addresses) => {
        if (lookupOptions.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
  const protocol = url.protocol === 'https:' ? 'https:' : 'http:';
  return new Promise((resolve, reject) => {
    const request = (protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: agents(options.destination)[protocol],
      lookup,
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
        const retryAfter = response.headers['retry-after'];
        resolve({ status: response.statusCode ?? 0, retryAfter });
      });
      response.resume();
    });
    request.on('error', fail);
    request.end(body);
  });
}
