import { isIP, type LookupFunction } from 'node:net';
import { keptAgents, post, type PostOptions } from '../http/post';
import { bareHost, checkedAddresses, type DestinationPolicy } from './address';

/** Where a delivery may connect, and its timeouts (`PostOptions`). */
export type SendOptions = { destination: DestinationPolicy } & Pick<
  PostOptions,
  'connectTimeoutMs' | 'totalTimeoutMs'
>;

// Connections are kept for the next delivery to the same endpoint; each was opened to an
// address checked when it was opened, under one policy: each policy has its own.
const agentsOf = new WeakMap<DestinationPolicy, PostOptions['agents']>();
function agents(policy: DestinationPolicy): PostOptions['agents'] {
  let found = agentsOf.get(policy);
  if (!found) {
    found = keptAgents();
    agentsOf.set(policy, found);
  }
  return found;
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
  const answer = await post(url, headers, body, {
    agents: agents(options.destination),
    lookup,
    connectTimeoutMs: options.connectTimeoutMs,
    totalTimeoutMs: options.totalTimeoutMs,
  });
  const retryAfter = answer.headers['retry-after'];
  return { status: answer.status, retryAfter };
}
