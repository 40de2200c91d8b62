import type { Env } from "@/env";
import { simulatedProvider } from "./simulated";
import type { VoiceProvider } from "./types";
import { createVapiProvider } from "./vapi";

export type { VoiceProvider } from "./types";

/**
 * The provider named by `VOICE_PROVIDER`: `simulated` (the default) or `vapi`, which needs
 * the `VAPI_API_KEY` secret (and takes `VAPI_BASE_URL`, default https://api.vapi.ai).
 * A misconfiguration throws, so dispatch retries rather than failing partners' calls.
 */
export function providerFor(env: Pick<Env, "VOICE_PROVIDER" | "VAPI_API_KEY" | "VAPI_BASE_URL">): VoiceProvider {
  const name = (env.VOICE_PROVIDER ?? "simulated").trim().toLowerCase() || "simulated";
  if (name === "simulated") return simulatedProvider;
  if (name === "vapi") {
    if (!env.VAPI_API_KEY) throw new Error("VOICE_PROVIDER is vapi but the VAPI_API_KEY secret is not set");
    return createVapiProvider({ apiKey: env.VAPI_API_KEY, baseUrl: env.VAPI_BASE_URL });
  }
  throw new Error(`Unknown VOICE_PROVIDER "${env.VOICE_PROVIDER}"; use simulated or vapi`);
}
