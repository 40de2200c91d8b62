import type { Child } from "hono/jsx";
import type { DashboardSession } from "@/domain/auth/dashboard-sessions";
import { paths } from "@/dashboard/http/paths";
import { Layout } from "./layout";

/** A page that only says something: signed out, a spent link, a refusal, a missing page. */
export const MessagePage = (props: { title: string; message: string; session?: DashboardSession; extra?: Child }) => (
  <Layout title={props.title} session={props.session}>
    <p>{props.message}</p>
    {props.extra}
  </Layout>
);

export const askForLink = "Ask the platform for a new sign-in link: links work once, for 15 minutes.";

export const pageMessages = {
  signedOut: `You are signed out of the agency dashboard. ${askForLink}`,
  linkUnknown: `This sign-in link is not valid. ${askForLink}`,
  linkSpent: `This sign-in link was already used or has expired. ${askForLink}`,
  agentRole: "Only the agency's owner and admins can use the dashboard. Ask your agency's owner if you need access.",
  memberRemoved: "You are no longer a member of this agency, so you cannot use its dashboard.",
  notFound: "There is nothing here. It may belong to another agency, or it was removed.",
  internal: "Something went wrong on our side. Nothing more was changed; try again in a moment.",
} as const;

export const SignedOutPage = () => <MessagePage title="Signed out" message={pageMessages.signedOut} />;

/**
 * A page that moves on by itself to `to`, with a link for when it does not. A navigation that
 * came from another site does not carry the `SameSite=Strict` session cookie, and neither does a
 * redirect that continues it; the navigation this page starts is this site's own, which does.
 */
export const HopPage = (props: { to: string; title: string; link: string }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta http-equiv="refresh" content={`0; url=${props.to}`} />
      <title>{`${props.title} · Partner API dashboard`}</title>
      <link rel="stylesheet" href={paths.stylesheet} />
    </head>
    <body>
      <main id="main">
        <h1>{props.title}</h1>
        <p>
          <a href={props.to}>{props.link}</a>
        </p>
      </main>
    </body>
  </html>
);

/** After a sign-in reached from another site: on to `to` (an app's consent page, or the API keys). */
export const SignedInHop = (props: { to: string }) => (
  <HopPage to={props.to} title="Signed in" link={props.to === paths.keys ? "Continue to API keys" : "Continue"} />
);
