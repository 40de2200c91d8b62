/** The credential a request was admitted with: an API key, or a connected app's OAuth grant. */
export type CallerCredential = { type: "api_key"; keyId: string } | { type: "app_grant"; grantId: string; clientId: string };

/** Who is calling: resolved from the access token by the guard middleware. */
export interface Caller {
  credential: CallerCredential;
  agencyId: string;
  /** The shard (D1 database) of the agency, as the key's gate last read it from the directory. */
  shard: string;
  scopes: readonly string[];
}
