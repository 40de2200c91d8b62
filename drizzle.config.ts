import { defineConfig } from "drizzle-kit";

// Migrations are generated here and applied by wrangler (`wrangler d1 migrations apply`),
// so drizzle-kit never needs database credentials.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
});
