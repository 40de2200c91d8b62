import { ApiError, notFound } from "@/lib/errors";

/**
 * A refusal the member can fix on the form (400: the shared schema's or rule's message; 409: a
 * limit), shown above it; anything else is left to the dashboard's error page.
 */
export function formError(error: unknown): { message: string; status: 400 | 409 } | undefined {
  if (error instanceof ApiError && (error.status === 400 || error.status === 409)) return { message: error.message, status: error.status };
  return undefined;
}

/**
 * Runs a form's action; a refusal the member can fix (`formError`) becomes `onRefused`'s page
 * (the form again, with the reason), anything else goes on to the error page.
 */
export async function orFormError<T, U>(action: () => Promise<T>, onRefused: (refused: { message: string; status: 400 | 409 }) => Promise<U>): Promise<T | U> {
  try {
    return await action();
  } catch (error) {
    const refused = formError(error);
    if (!refused) throw error;
    return onRefused(refused);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A record id from the URL: anything but a UUID names no record, so it is the 404 page without a query. */
export function idParam(value: string | undefined): string {
  if (!value || !UUID.test(value)) throw notFound("Not found");
  return value.toLowerCase();
}
