/**
 * The codes the current published SDK (@stackframe/js 2.8.108) added to the seed-era contract (contract/latest-sdk.md
 * F). Messages are the exact strings of that SDK's `@stackframe/stack-shared` `known-errors.js`; only the texts are
 * taken over. Which SDK generation knows which code is `KNOWN_ERRORS[code].generations` (catalogue.ts).
 */
import { leaf, required, type CustomerType } from "./catalogue-kit.ts";

type RestrictedReason = { readonly type: "anonymous" | "email_not_verified" | "restricted_by_administrator" };

export const CURRENT_SDK_LEAF_DEFINITIONS = {
  // ---- Project authentication, users -----------------------------------------------------------------------
  PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT: leaf({
    httpStatus: 401,
    parent: "PROJECT_AUTHENTICATION_REQUIRED",
    details: { project_id: required<string | null>() },
    message: () =>
      "Publishable client keys are required for this project. Create one in Project Keys, or disable this requirement there to allow keyless client access.",
    doc: "The request has access type client without a publishable key, and the project requires one (requirePublishableClientKey).",
  }),
  RESTRICTED_USER_NOT_ALLOWED: leaf({
    httpStatus: 403,
    details: { restricted_reason: required<RestrictedReason>() },
    message: ({ restricted_reason }) =>
      `The user in the access token is in restricted state. Reason: ${restricted_reason.type}. Please pass the X-Stack-Allow-Restricted-User header if this is intended.`,
    doc: "The access token's user is restricted and the request does not allow restricted users.",
  }),
  SIGN_UP_REJECTED: leaf({
    httpStatus: 403,
    details: { message: required<string>() },
    message: ({ message }) => message,
    doc: "A sign-up rule of the project rejected the sign-up (default text: \"Your sign up was rejected by an administrator's sign-up rule.\").",
  }),
  BOT_CHALLENGE_REQUIRED: leaf({
    httpStatus: 409,
    message: () => "An additional bot challenge is required before sign-up can continue.",
    doc: "The sign-up needs a (visible) bot challenge first.",
  }),
  BOT_CHALLENGE_FAILED: leaf({
    httpStatus: 400,
    details: { message: required<string>() },
    message: ({ message }) => message,
    doc: "The bot challenge token could not be verified.",
  }),
  TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED: leaf({
    httpStatus: 403,
    details: { restricted_reason: required<RestrictedReason>() },
    message: ({ restricted_reason }) =>
      `Restricted users cannot accept team invitations. Reason: ${restricted_reason.type}. Please complete the onboarding process before accepting team invitations.`,
    doc: "A restricted user tried to accept a team invitation.",
  }),
  TEAM_INVITATION_EMAIL_MISMATCH: leaf({
    httpStatus: 403,
    message: () =>
      "This team invitation was sent to a different email address. Sign in with the invited email, or add and verify that email on your account, then try again.",
    doc: "The invitation was sent to an address the accepting user does not have (verified).",
  }),

  // ---- OAuth ----------------------------------------------------------------------------------------------
  OAUTH_ACCESS_TOKEN_NOT_AVAILABLE: leaf({
    httpStatus: 400,
    details: { provider: required<string>(), details: required<string>() },
    message: ({ provider, details }) => `Failed to retrieve an OAuth access token for the connected account (provider: ${provider}). ${details}`,
    doc: "The connected account's provider gave no access token.",
  }),
  OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE: leaf({
    httpStatus: 503,
    message: () => "The OAuth provider is temporarily unavailable. Please try again later.",
    doc: "The OAuth provider did not answer or answered with a server error.",
  }),
  APPLE_BUNDLE_ID_NOT_CONFIGURED: leaf({
    httpStatus: 400,
    message: () =>
      "Apple Sign In is enabled, but no Bundle IDs are configured. Please add your app's Bundle ID in the Stack Auth dashboard under OAuth Providers > Apple > Apple Bundle IDs.",
    doc: "Native Apple sign-in without configured bundle ids.",
  }),
  INVALID_APPLE_CREDENTIALS: leaf({
    httpStatus: 400,
    message: () => "The Apple Sign In credentials could not be verified. Please try signing in again.",
    doc: "The native Apple identity token could not be verified.",
  }),

  // ---- Payments (products) --------------------------------------------------------------------------------
  PRODUCT_DOES_NOT_EXIST: leaf({
    httpStatus: 400,
    details: { product_id: required<string>(), context: required<"server_only" | "item_exists" | null>() },
    message: ({ product_id, context }) =>
      `Product with ID ${JSON.stringify(product_id)} ${
        context === "server_only"
          ? "is marked as server-only and cannot be accessed client side."
          : context === "item_exists"
            ? "does not exist, but an item with this ID exists."
            : "does not exist."
      }`,
    doc: "The product does not exist or is server-only (current name of OFFER_DOES_NOT_EXIST).",
  }),
  PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH: leaf({
    httpStatus: 400,
    details: {
      product_id: required<string | null>(),
      customer_id: required<string>(),
      product_customer_type: required<CustomerType | null>(),
      actual_customer_type: required<CustomerType>(),
    },
    message: ({ customer_id, product_customer_type, actual_customer_type }) =>
      `The ${actual_customer_type} with ID ${JSON.stringify(customer_id)} is not a valid customer for the inline product that has been passed in. ${
        product_customer_type
          ? `The product is configured to only be available for ${product_customer_type} customers, but the customer is a ${actual_customer_type}.`
          : "The product is missing a customer type field. Please make sure it is set up correctly in your project configuration."
      }`,
    doc: "The product is configured for another customer type (current name of OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH).",
  }),
  PRODUCT_ALREADY_GRANTED: leaf({
    httpStatus: 400,
    details: { product_id: required<string>(), customer_id: required<string>() },
    message: ({ product_id, customer_id }) => `Customer with ID ${JSON.stringify(customer_id)} already owns product ${JSON.stringify(product_id)}.`,
    doc: "The customer already owns the (non-stackable) product.",
  }),
  NEW_PURCHASES_BLOCKED: leaf({
    httpStatus: 403,
    message: () => "New purchases are currently blocked for this project. Please contact support for more information.",
    doc: "The project may not take new purchases.",
  }),
  DEFAULT_PAYMENT_METHOD_REQUIRED: leaf({
    httpStatus: 400,
    details: { customer_type: required<CustomerType>(), customer_id: required<string>() },
    message: () => "No default payment method is set for this customer.",
    doc: "The operation needs the customer's default payment method.",
  }),
  ONE_TIME_PURCHASE_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { one_time_purchase_id: required<string>() },
    message: ({ one_time_purchase_id }) => `One-time purchase with ID ${JSON.stringify(one_time_purchase_id)} does not exist.`,
    doc: "The one-time purchase does not exist.",
  }),
  ONE_TIME_PURCHASE_ALREADY_REFUNDED: leaf({
    httpStatus: 400,
    details: { one_time_purchase_id: required<string>() },
    message: ({ one_time_purchase_id }) => `One-time purchase with ID ${JSON.stringify(one_time_purchase_id)} was already refunded.`,
    doc: "The one-time purchase was refunded before.",
  }),
  SUBSCRIPTION_ALREADY_REFUNDED: leaf({
    httpStatus: 400,
    details: { subscription_id: required<string>() },
    message: ({ subscription_id }) => `Subscription with ID ${JSON.stringify(subscription_id)} was already refunded.`,
    doc: "The subscription was refunded before.",
  }),
  SUBSCRIPTION_INVOICE_NOT_FOUND: leaf({
    httpStatus: 404,
    details: { subscription_invoice_id: required<string>() },
    message: ({ subscription_invoice_id }) => `Subscription invoice with ID ${JSON.stringify(subscription_invoice_id)} does not exist.`,
    doc: "The subscription invoice does not exist.",
  }),
  TEST_MODE_PURCHASE_NON_REFUNDABLE: leaf({
    httpStatus: 400,
    message: () => "Test mode purchases are not refundable.",
    doc: "A test-mode purchase cannot be refunded.",
  }),

  // ---- E-mail -----------------------------------------------------------------------------------------------
  EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE: leaf({
    httpStatus: 409,
    details: { expires_at: required<string>() },
    message: ({ expires_at }) => `Email capacity boost is already active until ${expires_at}.`,
    doc: "A capacity boost is running already.",
  }),
  EMAIL_NOT_EDITABLE: leaf({
    httpStatus: 400,
    details: { email_id: required<string>(), status: required<string>() },
    message: ({ email_id, status }) =>
      `Email with ID "${email_id}" cannot be edited because it is in status "${status}". Only emails in PAUSED, PREPARING, RENDERING, RENDER_ERROR, SCHEDULED, QUEUED, or SERVER_ERROR status can be edited.`,
    doc: "The outbox e-mail is past the states in which it may be edited.",
  }),
  TEMPLATE_SOURCE_REWRITE_ERROR: leaf({
    httpStatus: 400,
    details: { error: required<string>() },
    message: ({ error }) => `Failed to rewrite template source: ${error}`,
    doc: "The template source could not be rewritten with the editable markers.",
  }),

  // ---- Analytics --------------------------------------------------------------------------------------------
  ANALYTICS_NOT_ENABLED: leaf({
    httpStatus: 400,
    message: () => "Analytics is not enabled for this project.",
    doc: "The project has analytics turned off.",
  }),
  ANALYTICS_QUERY_ERROR: leaf({
    httpStatus: 400,
    details: { error: required<string>() },
    message: ({ error }) => `${error}`,
    doc: "The analytics query failed; the message is the reason.",
  }),
  ANALYTICS_QUERY_TIMEOUT: leaf({
    httpStatus: 400,
    details: { timeout_ms: required<number>() },
    message: ({ timeout_ms }) =>
      `The query timed out. Please try again with a shorter query or increase the timeout. Timeout was ${timeout_ms}ms.`,
    doc: "The analytics query ran past its timeout.",
  }),
};

/** Codes the seed-era SDK (2.8.41) knows and the current one reports as UNSUPPORTED_ERROR (latest-sdk.md F). */
export const SEED_SDK_ONLY_CODES = [
  "OFFER_DOES_NOT_EXIST",
  "OFFER_CUSTOMER_TYPE_DOES_NOT_MATCH",
  "TEAM_ALREADY_EXISTS",
  "WORKFLOW_TOKEN_DOES_NOT_EXIST",
  "WORKFLOW_TOKEN_EXPIRED",
] as const;
