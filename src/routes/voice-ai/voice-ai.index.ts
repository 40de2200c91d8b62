import { createRouter } from "@/lib/create-router";
import * as handlers from "./voice-ai.handlers";
import * as routes from "./voice-ai.routes";

export const voiceAiRouter = createRouter()
  .openapi(routes.listVoiceAgents, handlers.listVoiceAgents)
  .openapi(routes.getVoiceAgent, handlers.getVoiceAgent)
  .openapi(routes.listVoiceCalls, handlers.listVoiceCalls)
  .openapi(routes.createVoiceCall, handlers.createVoiceCall)
  .openapi(routes.getVoiceCall, handlers.getVoiceCall)
  .openapi(routes.cancelVoiceCall, handlers.cancelVoiceCall)
  .openapi(routes.getVoiceWallet, handlers.getVoiceWallet);
