import type { Child } from "hono/jsx";
import type { DashboardSession } from "../auth/sessions";
import { paths } from "../paths";
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
 * After a sign-in reached from another site: the `SameSite=Strict` cookie is not sent on a
 * redirect that continues such a navigation, so the page moves on itself (a same-site
 * navigation, which does send it), with a link for when it does not. `to`: the page the
 * sign-in was for (an app's consent page), or the API keys.
 */
export const SignedInHop = (props: { to: string }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta http-equiv="refresh" content={`0; url=${props.to}`} />
      <title>Signed in · Partner API dashboard</title>
      <link rel="stylesheet" href={paths.stylesheet} />
    </head>
    <body>
      <main id="main">
        <h1>Signed in</h1>
        <p>
          <a href={props.to}>{props.to === paths.keys ? "Continue to API keys" : "Continue"}</a>
        </p>
      </main>
    </body>
  </html>
);
