/** The dashboard's stylesheet, a same-origin file (the CSP allows no inline style). Plain and readable; focus always visible. */
export const STYLESHEET = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; line-height: 1.5; }
body { margin: 0 auto; max-width: 60rem; padding: 0 1rem 3rem; }
a { color: LinkText; }
:focus-visible { outline: 3px solid Highlight; outline-offset: 2px; }
.skip-link { position: absolute; left: -999px; }
.skip-link:focus { left: 1rem; top: 1rem; background: Canvas; padding: 0.5rem; }
.site-header { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem 1.5rem; border-bottom: 1px solid GrayText; padding: 0.75rem 0; }
.site-header .who { margin: 0; flex: 1 1 auto; }
.site-header nav { flex-basis: 100%; }
.site-header nav ul { list-style: none; display: flex; gap: 1.5rem; margin: 0; padding: 0; }
a[aria-current="page"] { font-weight: bold; text-decoration: none; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.25rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid GrayText; padding: 0.35rem 0.5rem 0.35rem 0; }
.field, .check, .secret { margin: 0.75rem 0; }
.field label, .secret label { display: block; font-weight: bold; }
input[type="text"], input[type="url"] { width: 100%; max-width: 36rem; padding: 0.35rem; font: inherit; }
.secret input { font-family: ui-monospace, monospace; }
fieldset { margin: 1rem 0; }
.hint { margin: 0.25rem 0; color: GrayText; font-size: 0.9em; }
.notice { border-left: 4px solid green; padding: 0.5rem 0.75rem; }
.error { border-left: 4px solid red; padding: 0.5rem 0.75rem; font-weight: bold; }
.status-revoked, .status-expired, .status-disabled { font-weight: bold; }
button { font: inherit; padding: 0.35rem 0.9rem; cursor: pointer; }
.danger { color: #b00020; }
form.inline { display: inline-block; margin: 0.25rem 0.5rem 0.25rem 0; }
.summary { display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 1rem; }
.summary dd { margin: 0; }
.endpoint { border-top: 1px solid GrayText; margin-top: 1.5rem; }
/* "Never expires" is offered only while calendar is the one scope checked (the server enforces it either way). */
form.create-key:has(.scopes input:checked:not([data-scope="calendar"])) .never-expires,
form.create-key:not(:has(.scopes input[data-scope="calendar"]:checked)) .never-expires { display: none; }
`;
