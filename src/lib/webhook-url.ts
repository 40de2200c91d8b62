import ipaddr from "ipaddr.js";

/**
 * Where a webhook may be delivered (URL rules, docs/decisions/events-and-webhooks.md): public
 * `https` URLs only, so a partner cannot point our deliveries at our own network or anyone's
 * private one (SSRF). The checks run on the URL as WHATWG parses it, which already turns
 * `http://2130706433/` and `http://0x7f.1/` into `127.0.0.1`. Names are not resolved: a
 * Worker's fetch cannot reach private networks anyway, and we refuse every name that is private
 * by definition.
 */
export const webhookUrlMessages = {
  invalid: "url must be an absolute URL, e.g. https://example.com/webhooks",
  tooLong: "url must be at most 2048 characters",
  https: "url must use https",
  credentials: "url must not contain a username or password",
  localhost: "url must not point to localhost",
  privateIp: "url must not point to a private, loopback, link-local or otherwise reserved IP address",
  internalName: "url must not point to a host under .local or .internal",
  loopbackPort: "url on localhost must name a port, e.g. http://127.0.0.1:9000/webhooks",
} as const;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost"]);

/** The host without IPv6 brackets, if it is an IP literal; null for a name. */
function ipOf(hostname: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  if (!ipaddr.isValid(bare)) return null;
  const ip = ipaddr.parse(bare);
  if (ip.kind() === "ipv6") {
    const v6 = ip as ipaddr.IPv6;
    // An IPv4 address written as IPv6 is that IPv4 address: mapped (::ffff:10.0.0.1) or the
    // deprecated IPv4-compatible form (::7f00:1, i.e. ::127.0.0.1), which ipaddr.js calls unicast.
    if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
    const parts = v6.parts;
    if (parts.slice(0, 6).every((p) => p === 0)) return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
  return ip;
}

/**
 * The rule `url` breaks, as the 400 message naming it, or null when it may receive webhooks.
 * `allowLoopback` (ALLOW_LOOPBACK_WEBHOOKS, local development only) also lets
 * `http(s)://127.0.0.1:<port>` and `http(s)://localhost:<port>` through.
 */
export function webhookUrlProblem(url: string, options: { allowLoopback?: boolean } = {}): string | null {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return webhookUrlMessages.tooLong;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return webhookUrlMessages.invalid;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return webhookUrlMessages.invalid;
  if (parsed.username || parsed.password) return webhookUrlMessages.credentials;
  // A fully qualified name may end in dots (`localhost..`): they do not change where it points.
  const host = parsed.hostname.toLowerCase().replace(/\.+$/, "");
  if (host === "" || host.split(".").some((label) => label === "") && !host.startsWith("[")) return webhookUrlMessages.invalid;
  if (options.allowLoopback && LOOPBACK_HOSTS.has(host)) return parsed.port ? null : webhookUrlMessages.loopbackPort;
  if (parsed.protocol !== "https:") return webhookUrlMessages.https;
  if (host === "localhost" || host.endsWith(".localhost")) return webhookUrlMessages.localhost;
  const ip = ipOf(host);
  // Only globally routable unicast addresses: everything ipaddr.js classes otherwise (private,
  // loopback, linkLocal, uniqueLocal, carrierGradeNat, reserved, multicast, ...) is refused.
  if (ip) return ip.range() === "unicast" ? null : webhookUrlMessages.privateIp;
  if (host.endsWith(".local") || host.endsWith(".internal") || host === "local" || host === "internal") return webhookUrlMessages.internalName;
  if (!host.includes(".")) return webhookUrlMessages.invalid;
  return null;
}
