/**
 * Loads Stripe.js from the URL the run-time config names (production: https://js.stripe.com/v3; development and
 * tests: the local Stripe server's stand-in at <local stripe>/v3, which confirms against it), once per page.
 */
export interface StripeElement {
  mount(target: HTMLElement): void;
  destroy(): void;
  on(event: string, cb: (e: unknown) => void): void;
}
export interface StripeElements {
  create(type: "payment"): StripeElement;
  submit(): Promise<{ error?: { message?: string } }>;
}
export interface StripeJs {
  elements(options: { clientSecret: string }): StripeElements;
  confirmPayment(options: { elements: StripeElements; redirect: "if_required"; confirmParams: { return_url: string } }): Promise<{ error?: { message?: string; code?: string }; paymentIntent?: { id: string; status: string } }>;
}
type StripeFactory = (publishableKey: string, options?: { stripeAccount?: string }) => StripeJs;

let loading: Promise<StripeFactory> | null = null;

export function loadStripeJs(url: string): Promise<StripeFactory> {
  const w = window as unknown as { Stripe?: StripeFactory };
  if (w.Stripe) return Promise.resolve(w.Stripe);
  loading ??= new Promise<StripeFactory>((resolve, reject) => {
    const script = document.createElement("script");
    script.src = url;
    script.async = true;
    script.onload = () => (w.Stripe ? resolve(w.Stripe) : reject(new Error("The payment form did not load.")));
    script.onerror = () => {
      loading = null;
      script.remove();
      reject(new Error("The payment form could not be loaded. Check your connection and try again."));
    };
    document.head.appendChild(script);
  });
  return loading;
}
