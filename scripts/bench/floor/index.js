// The floor of the startup scenario (scripts/bench/startup.mjs): a Worker with no dependencies
// that answers GET /health as the project does. Its first answer is what workerd itself costs.
export default {
  fetch: () => Response.json({ success: true, status: "ok" }),
};
