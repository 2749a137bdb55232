/**
 * Payment method configurations: which payment methods checkout offers on an account. As in Stripe every account
 * (the platform and each connected account) has a default configuration; here it appears on first use, with a
 * deterministic id so it survives a restart of the local server. `display_preference[preference]` turns a method on
 * or off; `value` is the effective setting.
 */
import { str, obj, type Ctx } from "./context.ts";
import { invalid, listPage, newId, nowSeconds, type StripeObject } from "./store.ts";

/** The methods of a new default configuration and whether each starts on. */
const DEFAULT_METHODS: Readonly<Record<string, boolean>> = {
  card: true,
  link: true,
  apple_pay: true,
  google_pay: true,
  cashapp: false,
  klarna: false,
  affirm: false,
  amazon_pay: false,
  us_bank_account: false,
};

const entry = (on: boolean) => ({ available: on, display_preference: { overridable: null, preference: on ? "on" : "off", value: on ? "on" : "off" } });

function defaultConfiguration(ctx: Ctx): StripeObject {
  const id = `pmc_${(ctx.account ?? "platform").replace(/^acct_/, "")}`;
  const existing = ctx.state.store.find(id);
  if (existing) return existing.obj;
  const methods = Object.fromEntries(Object.entries(DEFAULT_METHODS).map(([m, on]) => [m, entry(on)]));
  return ctx.state.store.put(
    { id, object: "payment_method_configuration", active: true, application: null, is_default: true, livemode: false, name: "Default", parent: null, created: nowSeconds(), ...methods },
    ctx.account,
  );
}

export function listPaymentMethodConfigurations(ctx: Ctx): unknown {
  defaultConfiguration(ctx);
  return listPage(ctx.state.store.list("payment_method_configuration", ctx.account), ctx.params, "/v1/payment_method_configurations");
}

export function retrievePaymentMethodConfiguration(ctx: Ctx, id: string): StripeObject {
  defaultConfiguration(ctx);
  return ctx.state.store.get("payment_method_configuration", id, ctx.account);
}

/** Applies `<method>[display_preference][preference]=on|off|none` parameters, `name` and `active`. */
function apply(ctx: Ctx, config: StripeObject): void {
  const name = str(ctx.params, "name");
  if (name !== undefined) config.name = name;
  const active = str(ctx.params, "active");
  if (active !== undefined) {
    if (config.is_default && active === "false") throw invalid("The default payment method configuration cannot be deactivated.", "active");
    config.active = active === "true";
  }
  for (const [key, value] of Object.entries(ctx.params)) {
    if (["name", "active", "expand", "parent"].includes(key)) continue;
    const method = config[key] as { available: boolean; display_preference: Record<string, unknown> } | undefined;
    if (!method || typeof method !== "object" || !("display_preference" in method)) throw invalid(`Received unknown parameter: ${key}`, key);
    const preference = obj(obj({ [key]: value }, key), "display_preference").preference;
    if (preference !== "on" && preference !== "off" && preference !== "none") throw invalid(`Invalid ${key}[display_preference][preference]: must be one of on, off, or none`, `${key}[display_preference][preference]`);
    const on = preference === "on" || (preference === "none" && DEFAULT_METHODS[key] === true);
    method.display_preference = { ...method.display_preference, preference, value: on ? "on" : "off" };
    method.available = on;
  }
}

export function updatePaymentMethodConfiguration(ctx: Ctx, id: string): StripeObject {
  const config = retrievePaymentMethodConfiguration(ctx, id);
  apply(ctx, config);
  return config;
}

export function createPaymentMethodConfiguration(ctx: Ctx): StripeObject {
  const base = defaultConfiguration(ctx);
  const methods = Object.fromEntries(Object.keys(DEFAULT_METHODS).map((m) => [m, structuredClone(base[m])]));
  const config = ctx.state.store.put(
    { id: newId("pmc"), object: "payment_method_configuration", active: true, application: null, is_default: false, livemode: false, name: "Configuration", parent: null, created: nowSeconds(), ...methods },
    ctx.account,
  );
  apply(ctx, config);
  return config;
}
