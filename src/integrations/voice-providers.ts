import type { Env } from "@/env";
import { createSimulatedProvider, simulatedProvider } from "@/integrations/simulators/voice";
import type { VoiceProvider } from "@/domain/voice-ai/voice-provider";
import { createVapiProvider, VAPI_EVENTS_PATH } from "@/integrations/vapi/voice-client";

export type { VoiceProvider } from "@/domain/voice-ai/voice-provider";

/**
 * The provider named by `VOICE_PROVIDER`: `simulated` (the default) or `vapi`, which needs
 * the `VAPI_API_KEY` secret (and takes `VAPI_BASE_URL`, default https://api.vapi.ai).
 * A misconfiguration throws, so dispatch retries rather than failing partners' calls.
 * `SIMULATED_CALL_SPEED` (a number above 1) makes simulated calls last that many times less.
 */
export function chooseVoiceProvider(
  env: Pick<Env, "VOICE_PROVIDER" | "VAPI_API_KEY" | "VAPI_BASE_URL" | "SIMULATED_CALL_SPEED" | "VAPI_WEBHOOK_SECRET" | "PUBLIC_BASE_URL">,
): VoiceProvider {
  const name = (env.VOICE_PROVIDER ?? "simulated").trim().toLowerCase() || "simulated";
  if (name === "simulated") {
    const speed = Number(env.SIMULATED_CALL_SPEED ?? 1);
    return Number.isFinite(speed) && speed > 1 ? createSimulatedProvider({ speed }) : simulatedProvider;
  }
  if (name === "vapi") {
    if (!env.VAPI_API_KEY) throw new Error("VOICE_PROVIDER is vapi but the VAPI_API_KEY secret is not set");
    // With a public origin and a secret, Vapi reports each call's end itself; polling stays the fallback.
    const server =
      env.PUBLIC_BASE_URL && env.VAPI_WEBHOOK_SECRET
        ? { url: `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${VAPI_EVENTS_PATH}`, secret: env.VAPI_WEBHOOK_SECRET }
        : undefined;
    return createVapiProvider({ apiKey: env.VAPI_API_KEY, baseUrl: env.VAPI_BASE_URL, server });
  }
  throw new Error(`Unknown VOICE_PROVIDER "${env.VOICE_PROVIDER}"; use simulated or vapi`);
}
