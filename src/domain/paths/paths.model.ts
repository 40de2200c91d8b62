/** The kinds of step a path is made of (docs/api-guide.md, paths). */
export const stepTypes = ["question", "form", "booking", "content"] as const;
export type StepType = (typeof stepTypes)[number];

/** One input of a `form` step. */
export interface FormField {
  key: string;
  label: string;
  required: boolean;
}

/**
 * A step as it is stored: `description` always present (null when not given), `options` only on
 * a question step and `fields` only on a form step. The route's schema validates a request into it.
 */
export interface Step {
  key: string;
  type: StepType;
  title: string;
  description: string | null;
  options?: string[];
  fields?: FormField[];
}
