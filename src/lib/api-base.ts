/** Where the Partner API is served: every partner route's path starts with it. */
export const API_BASE = "/api/v2";
