import { z } from "@hono/zod-openapi";
import { integerFormat } from "@/lib/bounded";

/**
 * A whole-number query parameter. Query strings are text, and `z.coerce.number()` would take
 * `1e3`, `0x10` or ` 5`; partners get one plain rule and one message instead:
 * `<name> must be a whole number from <min> to <max>`.
 */
export function queryInteger<D extends number | undefined>(name: string, options: { min: number; max: number; default: D; description: string; documentedDefault?: number }) {
  const shown = options.documentedDefault ?? options.default;
  const message = `${name} must be a whole number from ${options.min} to ${options.max}`;
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return options.default;
      const value = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(value >= options.min && value <= options.max)) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return value as number | D;
    })
    .openapi({
      param: { name, in: "query" },
      type: "integer",
      format: integerFormat(options.min, options.max),
      minimum: options.min,
      maximum: options.max,
      default: shown,
      description: options.description,
      example: shown,
    });
}

/**
 * `true` or `false` in a query string; anything else is a 400 naming the parameter. Absent,
 * it is `fallback` (undefined when the filter is simply not applied).
 */
export const queryBoolean = <F extends boolean | undefined = undefined>(name: string, description: string, fallback?: F) =>
  z
    .enum(["true", "false"], { error: `${name} must be true or false` })
    .optional()
    .transform((v) => (v === undefined ? (fallback as F) : v === "true"))
    .openapi({ param: { name, in: "query" }, type: "boolean", description, example: true });
