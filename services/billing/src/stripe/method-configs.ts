import type Stripe from "stripe";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { GetPaymentMethodConfigsResponseSchema } from "@vestibule/proto/billing/v1/stripe_service";
import { statusError } from "@vestibule/shared/errors";
import type { BillingRuntime } from "../runtime.ts";
import { connectedAccount } from "./stripe-customers.ts";
import { requireStripe } from "./stripe-settings.ts";

type Configs = Required<Pick<MessageInitShape<typeof GetPaymentMethodConfigsResponseSchema>, "configId" | "methods">>;

/** Names the dashboard shows for Stripe's method keys (others show their key). */
const NAMES: Readonly<Record<string, string>> = {
  card: "Cards",
  link: "Link",
  apple_pay: "Apple Pay",
  google_pay: "Google Pay",
  cashapp: "Cash App Pay",
  klarna: "Klarna",
  affirm: "Affirm",
  afterpay_clearpay: "Afterpay / Clearpay",
  amazon_pay: "Amazon Pay",
  us_bank_account: "ACH Direct Debit",
  sepa_debit: "SEPA Direct Debit",
  ideal: "iDEAL",
  bancontact: "Bancontact",
  paypal: "PayPal",
};

interface MethodEntry {
  readonly available?: boolean;
  readonly display_preference?: { readonly overridable?: boolean | null; readonly preference?: string; readonly value?: string };
}

/** The per-method entries of a configuration: every field that has a display preference. */
function methodsOf(config: Stripe.PaymentMethodConfiguration): [string, MethodEntry][] {
  return Object.entries(config as unknown as Record<string, unknown>)
    .filter((e): e is [string, MethodEntry] => typeof e[1] === "object" && e[1] !== null && "display_preference" in (e[1] as object))
    .sort(([a], [b]) => a.localeCompare(b));
}

function view(config: Stripe.PaymentMethodConfiguration): Configs {
  return {
    configId: config.id,
    methods: methodsOf(config).map(([id, m]) => ({
      id,
      name: NAMES[id] ?? id,
      enabled: m.display_preference?.value === "on",
      available: m.available === true,
      overridable: m.display_preference?.overridable !== false,
    })),
  };
}

/** The connected account's default payment method configuration (Stripe gives every account one). */
async function defaultConfig(stripe: Stripe, account: string): Promise<Stripe.PaymentMethodConfiguration> {
  const list = await stripe.paymentMethodConfigurations.list({ limit: 100 }, { stripeAccount: account });
  const found = list.data.find((c) => c.is_default && c.active) ?? list.data.find((c) => c.active);
  if (!found) throw statusError(409, "The project's Stripe account has no active payment method configuration.");
  return found;
}

/** `GET /internal/payments/method-configs`: STRIPE_ACCOUNT_INFO_NOT_FOUND before onboarding (the SDK answers null). */
export async function getMethodConfigs(rt: BillingRuntime, projectId: string): Promise<Configs> {
  const account = await connectedAccount(rt, projectId);
  return view(await defaultConfig(requireStripe(rt).client, account));
}

/**
 * `PATCH /internal/payments/method-configs`: turns methods on or off in the account's default configuration. The
 * config id must be that configuration's (a stale dashboard gets a 409), every method one it has and may change.
 */
export async function updateMethodConfigs(rt: BillingRuntime, projectId: string, configId: string, updates: Readonly<Record<string, boolean>>): Promise<Configs> {
  const account = await connectedAccount(rt, projectId);
  const stripe = requireStripe(rt).client;
  const config = await defaultConfig(stripe, account);
  if (config.id !== configId) throw statusError(409, `Payment method configuration ${JSON.stringify(configId)} is not the project's current one (${config.id}); reload and try again.`);
  const methods = new Map(methodsOf(config));
  const problems: string[] = [];
  for (const id of Object.keys(updates)) {
    const m = methods.get(id);
    if (!m) problems.push(`${id}: not a payment method of this configuration`);
    else if (m.display_preference?.overridable === false) problems.push(`${id}: controlled by the platform's configuration and cannot be changed`);
  }
  if (problems.length > 0) throw statusError(400, `Cannot update payment methods:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  if (Object.keys(updates).length === 0) return view(config);
  const params = Object.fromEntries(Object.entries(updates).map(([id, on]) => [id, { display_preference: { preference: on ? "on" : "off" } }]));
  const updated = await stripe.paymentMethodConfigurations.update(config.id, params as Stripe.PaymentMethodConfigurationUpdateParams, { stripeAccount: account });
  return view(updated);
}
