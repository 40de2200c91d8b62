// `z.core` of build/zod.mjs: zod/v4/core less the same parts (see there).
export * from "zod/v4/core";

export const locales = undefined;
export const compile = undefined;
export const compileFn = undefined;
export const withParser = undefined;
export const INVALID = undefined;
export const ZodCompileAsyncError = undefined;
export const ZodCompileUnsupportedError = undefined;
