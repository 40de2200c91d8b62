import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, notFound } from "@/lib/errors";
import * as repo from "./settings.repository";
import type * as routes from "./settings.routes";
import { settingsMessages } from "./settings.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

async function currentSettings(c: { var: AppBindings["Variables"] }) {
  const settings = await repo.getSettings(c.var.db, c.var.caller.agencyId);
  // A key always belongs to an existing agency; this only guards against a deleted one.
  if (!settings) throw notFound("Agency not found");
  return settings;
}

export const getSettings: Handler<"getSettings"> = async (c) => c.json({ success: true as const, settings: await currentSettings(c) }, 200);

export const updateSettings: Handler<"updateSettings"> = async (c) => {
  const body = c.req.valid("json");
  const { db } = c.var;
  const { agencyId } = c.var.caller;
  const agentId = body.voice?.default_voice_agent_uuid;
  if (agentId) {
    const status = await repo.voiceAgentStatus(db, agencyId, agentId);
    if (!status) throw badRequest(settingsMessages.unknownVoiceAgent);
    if (status !== "active") throw badRequest(settingsMessages.inactiveVoiceAgent);
  }
  await repo.updateSettings(db, agencyId, body);
  return c.json({ success: true as const, settings: await currentSettings(c) }, 200);
};
