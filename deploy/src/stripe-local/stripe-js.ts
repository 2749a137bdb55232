/**
 * A minimal Stripe.js stand-in, served by the local Stripe server at `/v3` (development and tests: the real
 * https://js.stripe.com/v3 cannot be reached from these machines, and it would talk to the real API). It offers the
 * part of Stripe.js' surface the purchase page uses: `Stripe(pk, {stripeAccount})`, `elements({clientSecret})`,
 * `elements.create("payment" | "card")` with `mount`/`on`/`destroy`, `elements.submit()`, `confirmPayment`,
 * `confirmSetup` and `retrievePaymentIntent`, confirming against the local server's REST API exactly as Stripe.js
 * does against Stripe's (publishable key, client secret, `payment_method_data[card][...]`). The card form is a plain
 * fieldset: card number, expiry (MM / YY) and CVC.
 */
export function stripeJsSource(apiBase: string): string {
  return `/* Local Stripe.js stand-in (Vestibule development) */
(function () {
  "use strict";
  var API = ${JSON.stringify(apiBase.replace(/\/+$/, ""))};
  function enc(obj, prefix, out) {
    Object.keys(obj).forEach(function (k) {
      var v = obj[k], key = prefix ? prefix + "[" + k + "]" : k;
      if (v === undefined || v === null) return;
      if (typeof v === "object") enc(v, key, out); else out.push(encodeURIComponent(key) + "=" + encodeURIComponent(String(v)));
    });
    return out.join("&");
  }
  function intentPath(secret) {
    var m = /^((pi|seti)_[A-Za-z0-9]+)_secret_/.exec(secret || "");
    if (!m) return null;
    return (m[2] === "pi" ? "/v1/payment_intents/" : "/v1/setup_intents/") + m[1];
  }
  function Stripe(publishableKey, options) {
    if (!publishableKey) throw new Error("Stripe(): a publishable key is required");
    var account = options && options.stripeAccount;
    function call(method, path, params) {
      var headers = { Authorization: "Bearer " + publishableKey, "Content-Type": "application/x-www-form-urlencoded" };
      if (account) headers["Stripe-Account"] = account;
      var body = enc(params, "", []);
      var url = API + path + (method === "GET" ? "?" + body : "");
      return fetch(url, { method: method, headers: headers, body: method === "GET" ? undefined : body }).then(function (res) {
        return res.json().then(function (json) { return { ok: res.ok, json: json }; });
      }, function () { return { ok: false, json: { error: { type: "api_connection_error", message: "Could not reach the payment server." } } }; });
    }
    function Elements(opts) {
      this.clientSecret = opts && opts.clientSecret;
      this.element = null;
    }
    Elements.prototype.create = function (type) {
      if (type !== "payment" && type !== "card") throw new Error("The local Stripe.js supports the payment and card elements only");
      var el = new CardElement();
      this.element = el;
      return el;
    };
    Elements.prototype.getElement = function () { return this.element; };
    Elements.prototype.submit = function () {
      var problem = this.element ? this.element.problem() : { type: "validation_error", code: "incomplete", message: "The payment form is not mounted." };
      return Promise.resolve(problem ? { error: problem } : {});
    };
    Elements.prototype.update = function () {};
    function CardElement() { this.handlers = {}; this.root = null; }
    CardElement.prototype.on = function (name, cb) { (this.handlers[name] = this.handlers[name] || []).push(cb); return this; };
    CardElement.prototype.emit = function (name, ev) { (this.handlers[name] || []).forEach(function (cb) { cb(ev); }); };
    CardElement.prototype.mount = function (target) {
      var host = typeof target === "string" ? document.querySelector(target) : target;
      if (!host) throw new Error("mount(): no element " + target);
      var self = this;
      var wrap = document.createElement("fieldset");
      wrap.setAttribute("data-local-stripe", "card");
      wrap.style.cssText = "border:1px solid currentColor;border-radius:8px;padding:10px;display:grid;gap:8px;grid-template-columns:1fr 1fr;min-width:0";
      var legend = document.createElement("legend");
      legend.textContent = "Card (test mode)";
      wrap.appendChild(legend);
      function field(label, name, placeholder, auto, span) {
        var l = document.createElement("label");
        l.style.cssText = "display:grid;gap:4px;font-size:14px;min-width:0" + (span ? ";grid-column:1/-1" : "");
        l.textContent = label;
        var i = document.createElement("input");
        i.name = name; i.placeholder = placeholder; i.autocomplete = auto; i.inputMode = "numeric";
        i.style.cssText = "font:inherit;padding:8px;border-radius:6px;border:1px solid #8a8a8a;min-width:0";
        i.addEventListener("input", function () { self.emit("change", { elementType: "payment", complete: !self.problem(), empty: false }); });
        l.appendChild(i);
        wrap.appendChild(l);
        return i;
      }
      this.number = field("Card number", "cardnumber", "4242 4242 4242 4242", "cc-number", true);
      this.expiry = field("Expiry (MM / YY)", "exp-date", "12 / 34", "cc-exp");
      this.cvc = field("CVC", "cvc", "123", "cc-csc");
      host.appendChild(wrap);
      this.root = wrap;
      setTimeout(function () { self.emit("ready", { elementType: "payment" }); }, 0);
      return this;
    };
    CardElement.prototype.unmount = function () { if (this.root) this.root.remove(); this.root = null; };
    CardElement.prototype.destroy = CardElement.prototype.unmount;
    CardElement.prototype.focus = function () { if (this.number) this.number.focus(); };
    CardElement.prototype.values = function () {
      var exp = (this.expiry.value || "").split("/").map(function (s) { return s.trim(); });
      return { number: (this.number.value || "").replace(/\\s+/g, ""), exp_month: exp[0] || "", exp_year: exp[1] || "", cvc: this.cvc.value || "" };
    };
    CardElement.prototype.problem = function () {
      if (!this.root) return { type: "validation_error", code: "incomplete", message: "The payment form is not mounted." };
      var v = this.values();
      if (!/^\\d{12,19}$/.test(v.number)) return { type: "validation_error", code: "incomplete_number", message: "Your card number is incomplete." };
      if (!/^\\d{1,2}$/.test(v.exp_month) || !/^\\d{2,4}$/.test(v.exp_year)) return { type: "validation_error", code: "incomplete_expiry", message: "Your card's expiration date is incomplete." };
      if (!/^\\d{3,4}$/.test(v.cvc)) return { type: "validation_error", code: "incomplete_cvc", message: "Your card's security code is incomplete." };
      return null;
    };
    function confirm(kind, opts) {
      opts = opts || {};
      var elements = opts.elements;
      var secret = opts.clientSecret || (elements && elements.clientSecret);
      var path = intentPath(secret);
      if (!path) return Promise.resolve({ error: { type: "invalid_request_error", message: "A client secret is required." } });
      var el = elements && elements.element;
      var problem = el ? el.problem() : { type: "validation_error", code: "incomplete", message: "The payment form is not mounted." };
      if (problem) return Promise.resolve({ error: problem });
      var v = el.values();
      return call("POST", path + "/confirm", {
        client_secret: secret,
        payment_method_data: { type: "card", card: { number: v.number, exp_month: v.exp_month, exp_year: v.exp_year, cvc: v.cvc } },
        return_url: opts.confirmParams && opts.confirmParams.return_url,
      }).then(function (r) {
        if (!r.ok) return { error: r.json.error };
        var key = kind === "payment" ? "paymentIntent" : "setupIntent";
        var returnUrl = opts.confirmParams && opts.confirmParams.return_url;
        if (opts.redirect !== "if_required" && returnUrl) {
          var u = new URL(returnUrl, location.href);
          u.searchParams.set(kind === "payment" ? "payment_intent" : "setup_intent", r.json.id);
          u.searchParams.set(kind === "payment" ? "payment_intent_client_secret" : "setup_intent_client_secret", secret);
          u.searchParams.set("redirect_status", r.json.status);
          location.assign(u.toString());
        }
        var out = {}; out[key] = r.json; return out;
      });
    }
    return {
      elements: function (opts) { return new Elements(opts); },
      confirmPayment: function (opts) { return confirm("payment", opts); },
      confirmSetup: function (opts) { return confirm("setup", opts); },
      retrievePaymentIntent: function (secret) {
        var path = intentPath(secret);
        return call("GET", path, { client_secret: secret }).then(function (r) { return r.ok ? { paymentIntent: r.json } : { error: r.json.error }; });
      },
    };
  }
  Stripe.version = 3;
  Stripe.local = true;
  window.Stripe = Stripe;
})();
`;
}
