import type { Child } from "hono/jsx";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { CsrfField } from "./components";

export type Section = "keys" | "webhooks" | "apps" | "audit";

const NavLink = (props: { href: string; current: boolean; children: Child }) => (
  <a href={props.href} aria-current={props.current ? "page" : undefined}>
    {props.children}
  </a>
);

/** The document of every page: the signed-in header and navigation when there is a session. */
export const Layout = (props: { title: string; session?: DashboardSession; section?: Section; children?: Child }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{`${props.title} · Partner API dashboard`}</title>
      <link rel="stylesheet" href={paths.stylesheet} />
      <script src={paths.copyScript} defer></script>
    </head>
    <body>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      {props.session ? (
        <header class="site-header">
          <p class="who">
            <strong>{props.session.agencyName}</strong> · signed in as {props.session.memberName} ({props.session.role})
          </p>
          <form method="post" action={paths.signOut} class="inline">
            <CsrfField session={props.session} />
            <button type="submit">Sign out</button>
          </form>
          <nav aria-label="Dashboard">
            <ul>
              <li>
                Integrations:{" "}
                <NavLink href={paths.keys} current={props.section === "keys"}>
                  API keys
                </NavLink>{" "}
                ·{" "}
                <NavLink href={paths.webhooks} current={props.section === "webhooks"}>
                  Webhooks
                </NavLink>{" "}
                ·{" "}
                <NavLink href={paths.apps} current={props.section === "apps"}>
                  Connected apps
                </NavLink>
              </li>
              <li>
                <NavLink href={paths.auditLog} current={props.section === "audit"}>
                  Audit log
                </NavLink>
              </li>
            </ul>
          </nav>
        </header>
      ) : null}
      <main id="main">
        <h1>{props.title}</h1>
        {props.children}
      </main>
    </body>
  </html>
);
