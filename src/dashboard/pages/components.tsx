import type { Child } from "hono/jsx";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";

/** The form field of the session's CSRF token. */
export const CSRF_FIELD = "_csrf";

/** The session's synchronizer token, in every form. */
export const CsrfField = (props: { session: DashboardSession }) => <input type="hidden" name={CSRF_FIELD} value={props.session.csrfToken} />;

/** `2026-11-21 14:05 UTC`, machine-readable in `datetime`; "never" when there is no time. */
export const Instant = (props: { at: string | null; none?: string }) =>
  props.at ? <time datetime={props.at}>{`${props.at.slice(0, 10)} ${props.at.slice(11, 16)} UTC`}</time> : <>{props.none ?? "never"}</>;

/** A confirmation after a redirect: a fixed text chosen by the server, never echoed input. */
export const Notice = (props: { text?: string }) =>
  props.text ? (
    <p class="notice" role="status">
      {props.text}
    </p>
  ) : null;

/** A refused form's reason, announced to screen readers. */
export const ErrorMessage = (props: { text?: string }) =>
  props.text ? (
    <p class="error" role="alert" id="form-error">
      {props.text}
    </p>
  ) : null;

/**
 * A secret shown once: a read-only field anyone can select and copy by hand, and a copy button
 * the external script reveals (hidden without JavaScript, where it could not work).
 */
export const SecretField = (props: { id: string; label: string; value: string; hint?: Child }) => (
  <div class="secret">
    <label for={props.id}>{props.label}</label>
    <input id={props.id} name={props.id} type="text" readonly value={props.value} autocomplete="off" spellcheck={false} />
    <button type="button" class="copy" data-copy={props.id} data-label={props.label} hidden>
      {`Copy ${props.label.toLowerCase()}`}
    </button>
    {props.hint ? <p class="hint">{props.hint}</p> : null}
  </div>
);

/** Where the copy script says what it did, for screen readers too. */
export const CopyStatus = () => <p id="copy-status" class="copy-status" role="status" aria-live="polite"></p>;

/** A one-button form posting to `action` (with the CSRF token). */
export const ActionForm = (props: { action: string; session: DashboardSession; label: string; describedBy?: string; danger?: boolean }) => (
  <form method="post" action={props.action} class="inline">
    <CsrfField session={props.session} />
    <button type="submit" class={props.danger ? "danger" : undefined} aria-describedby={props.describedBy}>
      {props.label}
    </button>
  </form>
);

/** The confirming step of a destructive action: its button, described by the page's warning, and a way back. */
export const ConfirmForm = (props: { action: string; session: DashboardSession; label: string; warningId: string; cancelHref: string }) => (
  <form method="post" action={props.action}>
    <CsrfField session={props.session} />
    <button type="submit" class="danger" aria-describedby={props.warningId}>
      {props.label}
    </button>{" "}
    <a href={props.cancelHref}>Cancel</a>
  </form>
);

/**
 * Records as a table with a caption and a header per column, or the `empty` sentence when there
 * are none: one accessible structure for every list in the dashboard.
 */
export const RecordTable = <T,>(props: { caption: Child; columns: string[]; rows: T[]; empty: string; row: (record: T) => Child }) =>
  props.rows.length === 0 ? (
    <p>{props.empty}</p>
  ) : (
    <table>
      <caption>{props.caption}</caption>
      <thead>
        <tr>
          {props.columns.map((column) => (
            <th scope="col">{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>{props.rows.map(props.row)}</tbody>
    </table>
  );
