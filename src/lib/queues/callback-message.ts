/**
 * A `provider-callbacks` queue message as the binding sees it: a verified provider callback,
 * whose full shape is the domain's `ProviderCallback` (src/domain/provider-callbacks/), checked
 * again by `isProviderCallback` when the consumer reads it. Kept this loose here so the bindings'
 * types (src/env.ts) need nothing from the domain.
 */
export type CallbackMessage = { type: string; agency_id: string } & Record<string, unknown>;
