/**
 * The MCP protocol revisions /mcp serves, as the official SDK (2.4) serves them: the 2025 era,
 * negotiated by `initialize`, and the 2026-07-28 era, where every request names its revision
 * in `params._meta` and a client learns ours with `server/discover`.
 */

/** Revisions an `initialize` can settle on, newest first (the SDK's SUPPORTED_PROTOCOL_VERSIONS). */
export const LEGACY_VERSIONS = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"] as const;
/** Revisions of the per-request era we serve (the SDK's SUPPORTED_MODERN_PROTOCOL_VERSIONS). */
export const MODERN_VERSIONS = ["2026-07-28"] as const;

/** Revisions are ISO dates, so they compare as text. */
export const isModernVersion = (version: string) => version >= MODERN_VERSIONS[0];

/** The revision an `initialize` answer names: the client's when we serve it, else our newest 2025 one. */
export const negotiatedVersion = (requested: string) =>
  (LEGACY_VERSIONS as readonly string[]).includes(requested) ? requested : LEGACY_VERSIONS[0];

/** The reserved `_meta` keys of the 2026-07-28 era. */
export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
} as const;

/** Code of a request whose headers and body disagree (2026-07-28). */
export const HEADER_MISMATCH = -32020;
/** Code of a request naming a revision we do not serve (2026-07-28). */
export const UNSUPPORTED_VERSION = -32022;
