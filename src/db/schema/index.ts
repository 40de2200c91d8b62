export * from "./agencies";
export * from "./api-keys";
export * from "./contacts";
export * from "./fields";
export * from "./idempotency";
export * from "./members";
export * from "./paths";
