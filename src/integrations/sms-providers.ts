import type { Env } from "@/env";
import type { SmsProvider } from "@/domain/messages/sms-provider";
import { simulatedSmsProvider } from "@/integrations/simulators/sms";
import { createTwilioSmsProvider, TWILIO_STATUS_PATH } from "@/integrations/twilio/sms-client";

/**
 * The provider for this deployment: Twilio's Messages API when `SMS_PROVIDER` is `twilio`
 * (with its account SID and auth token), the simulator otherwise.
 */
export function chooseSmsProvider(env: Env): SmsProvider {
  if (env.SMS_PROVIDER !== "twilio") return simulatedSmsProvider;
  if (!env.TWILIO_ACCOUNT_SID || !env.TWILIO_AUTH_TOKEN) throw new Error("SMS_PROVIDER is twilio but TWILIO_ACCOUNT_SID or TWILIO_AUTH_TOKEN is not set");
  return createTwilioSmsProvider({
    accountSid: env.TWILIO_ACCOUNT_SID,
    authToken: env.TWILIO_AUTH_TOKEN,
    baseUrl: env.TWILIO_BASE_URL,
    statusCallbackUrl: env.PUBLIC_BASE_URL ? `${env.PUBLIC_BASE_URL.replace(/\/+$/, "")}${TWILIO_STATUS_PATH}` : null,
  });
}
