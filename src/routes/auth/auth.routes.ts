import { jsonBody, jsonContent } from "@/lib/openapi";
import { partnerRoute } from "@/routes/partner-route";
import { messages } from "@/lib/errors";
import { RenewTokenBody, RenewTokenResponse } from "./auth.schemas";

export const renewToken = partnerRoute({
  method: "post",
  path: "/auth/token/renew",
  operationId: "renewToken",
  tags: ["Authentication"],
  summary: "Renew access token",
  description:
    "Exchanges the current access token (valid or expired) and the unused rotate key for a new access token and a " +
    "new rotate key. Send it without an Authorization header. The old access token and rotate key stop working " +
    "immediately, so store both new secrets before discarding the old ones. If two renewals race with the same pair, " +
    "exactly one succeeds. Legacy calendar tokens cannot be renewed.",
  scopes: "none",
  request: { body: jsonBody(RenewTokenBody) },
  errors: [401],
  errorExamples: { 401: { description: "The pair does not match an active key.", error: messages.invalidRenewal } },
  responses: { 200: jsonContent(RenewTokenResponse, "The new secrets.") },
});
