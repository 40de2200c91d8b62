import { text } from "drizzle-orm/sqlite-core";

/**
 * Timestamps are stored as ISO 8601 UTC strings with milliseconds: they sort correctly as
 * text and are returned to partners unchanged.
 */
export const timestamp = (name: string) => text(name);

export const createdAt = () => timestamp("created_at").notNull();
export const updatedAt = () => timestamp("updated_at").notNull();
