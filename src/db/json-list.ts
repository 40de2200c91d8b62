import { sql, type SQL } from "drizzle-orm";

/**
 * A list bound as one parameter, a JSON array that SQLite's `json_each` unpacks: any number of
 * values in one statement, where D1 binds at most 100 parameters a statement.
 */
export const jsonList = (values: readonly unknown[]) => JSON.stringify(values);

/** `column IN (the values)`, for a list of any length, bound as one JSON array. */
export const inJsonList = (column: unknown, values: readonly unknown[]): SQL => sql`${column} IN (SELECT value FROM json_each(${jsonList(values)}))`;
