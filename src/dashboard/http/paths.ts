import { OAUTH_PATHS } from "@/domain/auth/oauth-server";

/** Every dashboard URL, in one place: pages link to each other through these. */
export const DASHBOARD = "/dashboard";

export const paths = {
  home: DASHBOARD,
  signedOut: `${DASHBOARD}/signed-out`,
  signOut: `${DASHBOARD}/sign-out`,
  keys: `${DASHBOARD}/integrations/api-keys`,
  key: (keyId: string) => `${DASHBOARD}/integrations/api-keys/${keyId}`,
  webhooks: `${DASHBOARD}/integrations/webhooks`,
  webhook: (endpointId: string) => `${DASHBOARD}/integrations/webhooks/${endpointId}`,
  auditLog: `${DASHBOARD}/audit-log`,
  apps: `${DASHBOARD}/integrations/apps`,
  app: (grantId: string) => `${DASHBOARD}/integrations/apps/${grantId}`,
  /** The OAuth authorization endpoint: the consent page (domain/auth/oauth-server.ts). */
  authorize: OAUTH_PATHS.authorize,
  /** Workers static assets: public/dashboard/assets/. */
  stylesheet: `${DASHBOARD}/assets/dashboard.css`,
  copyScript: `${DASHBOARD}/assets/copy.js`,
} as const;
