import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where a webhook may be sent. A merchant names the URL, so without a rule the server
 * would POST wherever it can reach: its own loopback, the database's port, the private
 * network, the cloud's metadata service. Only public unicast addresses are allowed, judged
 * by ipaddr.js's ranges (loopback, private, link-local, unique-local, unspecified, CGNAT,
 * multicast, broadcast, reserved, documentation, 6to4/Teredo/NAT64 tunnels… are not),
 * IPv4-mapped IPv6 judged as the IPv4 address it carries. The check is made on the address
 * the connection then uses (`checkedAddresses`, the `lookup` of the delivery's socket), so
 * a name that resolves differently the second time (DNS rebinding) gains nothing.
 */

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** A name's addresses; the system resolver unless a test gives its own. */
export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolve: Resolve = (hostname) => lookup(hostname, { all: true });

export interface DestinationPolicy {
  /** WEBHOOK_ALLOW_PRIVATE: development and the sandbox's local receivers only. */
  allowPrivate: boolean;
  resolve?: Resolve | undefined;
}

/** A destination the policy refuses: nothing was sent to it. */
export class RefusedDestination extends Error {
  override name = 'RefusedDestination';
}

/** What a merchant is told, whatever the address: no hint of what is behind it. */
export const REFUSED_MESSAGE =
  'must point to a public address (not loopback, private, link-local or another internal range)';

/** The range that makes `address` no place for a webhook, or undefined when it is public. */
export function internalRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not an address';
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
}

/** `[::1]` → `::1`: a URL's host as the resolver and the socket take it. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Names that are this machine by definition (RFC 6761), whatever a resolver says. */
function isLocalName(hostname: string): boolean {
  return /(^|\.)localhost\.?$/i.test(hostname);
}

/**
 * The addresses to connect to for `hostname`, each one allowed by the policy; throws
 * RefusedDestination when any is not (a name with one internal address among public ones
 * is refused whole), and the resolver's own error when the name does not resolve.
 */
export async function checkedAddresses(
  hostname: string,
  policy: DestinationPolicy,
): Promise<ResolvedAddress[]> {
  const family = isIP(hostname);
  const addresses = family
    ? [{ address: hostname, family }]
    : !policy.allowPrivate && isLocalName(hostname)
      ? undefined
      : await (policy.resolve ?? systemResolve)(hostname);
  if (!addresses) throw new RefusedDestination(`${hostname} is this machine`);
  if (addresses.length === 0) throw new RefusedDestination(`${hostname} has no address`);
  if (policy.allowPrivate) return addresses;
  for (const { address } of addresses) {
    const range = internalRange(address);
    if (range)
      throw new RefusedDestination(
        family ? `${address} is ${range}` : `${hostname} resolves to ${address} (${range})`,
      );
  }
  return addresses;
}

/**
 * Why `url` may not be given as a webhook endpoint, or undefined. Its host is resolved now
 * too; a name that does not resolve (yet) is accepted: every delivery checks again.
 */
export async function destinationProblem(
  url: URL,
  policy: DestinationPolicy,
  resolveTimeoutMs = 3000,
): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      checkedAddresses(bareHost(url), policy),
      new Promise((resolve) => (timer = setTimeout(resolve, resolveTimeoutMs))),
    ]);
    return undefined;
  } catch (error) {
    return error instanceof RefusedDestination ? REFUSED_MESSAGE : undefined;
  } finally {
    clearTimeout(timer);
  }
}
