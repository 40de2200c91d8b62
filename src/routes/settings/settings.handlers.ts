import type { RouteHandler } from "@hono/zod-openapi";
import type { AppBindings } from "@/lib/context";
import { badRequest, notFound } from "@/lib/errors";
import { rehold } from "@/domain/voice-ai/call-schedule";
import * as calls from "@/domain/voice-ai/calls.repository";
import * as repo from "@/domain/settings/settings.repository";
import type * as routes from "./settings.routes";
import { settingsMessages } from "./settings.schemas";

type Handler<K extends keyof typeof routes> = RouteHandler<(typeof routes)[K], AppBindings>;

/** The settings row of the caller's agency; a key always has one, this only guards against a deleted agency. */
function existing<T>(row: T | undefined): T {
  if (!row) throw notFound("Agency not found");
  return row;
}

export const getSettings: Handler<"getSettings"> = async (c) =>
  c.json({ success: true as const, settings: existing(await repo.getSettings(c.var.db, c.var.caller.agencyId)) }, 200);

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
  const row = existing(await repo.updateSettings(db, agencyId, body));
  if (body.calling_hours !== undefined || body.calling_timezone !== undefined) {
    // Calls waiting for the old hours follow the new ones (to an earlier or a later opening).
    const window = repo.callingWindowOf(repo.effectiveSettings(row));
    await calls.moveHeldCalls(db, agencyId, rehold(await calls.heldCalls(db, agencyId), window, Date.now()));
  }
  return c.json({ success: true as const, settings: repo.toPublicSettings(row) }, 200);
};
