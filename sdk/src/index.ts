export { PartnerApi, type PartnerApiOptions, type ResponseData, type ListPath, type ListItem } from "./client.js";
export {
  PartnerApiError,
  ValidationError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  RateLimitError,
  ServerError,
  ConnectionError,
} from "./errors.js";
export { memoryTokenStore, type TokenPair, type TokenStore } from "./tokens.js";
export type { RetryOptions } from "./retry.js";
export type { FetchLike } from "./transport.js";
export { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "./webhooks.js";
export type { paths, components, operations } from "./generated/api.js";
/** A schema of the API's document by name, e.g. `Schema<"Contact">`. */
export type Schema<Name extends keyof import("./generated/api.js").components["schemas"]> = import("./generated/api.js").components["schemas"][Name];
