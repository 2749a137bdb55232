import { describe, expect, it } from "vitest";
import {
  DEFAULT_EMAIL_THEME_ID,
  adminConfigFromRendered,
  applyOverride,
  clientProjectConfig,
  defaultRenderedConfig,
  demoProjectSeedConfig,
  flattenOverride,
  internalProjectSeedConfig,
  isSecretConfigPath,
  listSecretLeaves,
  mapSecretLeaves,
  mapSecretLeavesAsync,
  mergeOverrides,
  overrideFromAdminConfigUpdate,
  parseConfigOverride,
  redirectTrustFromRendered,
  renderConfig,
  secretConfigPaths,
  validateAdminConfigUpdate,
  validateOverride,
  withoutSecretLeaves,
} from "./config/index.ts";
import type { AdminConfigUpdate, ConfigOverride } from "./config/index.ts";

/** The stored document after a sequence of writes, as the project service folds them. */
function fold(...patches: ConfigOverride[]): ConfigOverride {
  return patches.reduce<ConfigOverride>((doc, patch) => applyOverride(doc, patch), {});
}

/** Update -> override -> stored document -> rendered -> admin view. */
function adminAfter(...updates: AdminConfigUpdate[]) {
  return adminConfigFromRendered(renderConfig(fold(...updates.map(overrideFromAdminConfigUpdate))));
}

describe("defaults", () => {
  it("match the contract", () => {
    const d = defaultRenderedConfig();
    expect(d.auth.allowSignUp).toBe(true);
    expect(d.auth.password.allowSignIn).toBe(true);
    expect(d.auth.otp.allowSignIn).toBe(false);
    expect(d.auth.passkey.allowSignIn).toBe(false);
    expect(d.auth.oauth).toEqual({ accountMergeStrategy: "link_method", providers: {} });
    expect(d.domains).toEqual({ allowLocalhost: true, trustedDomains: {} });
    expect(d.teams).toEqual({ createPersonalTeamOnSignUp: false, allowClientTeamCreation: false });
    expect(d.users).toEqual({ allowClientUserDeletion: false });
    expect(d.apiKeys).toEqual({ enabled: { user: false, team: false } });
    expect(d.emails.server).toEqual({ isShared: true });
    expect(d.emails.selectedThemeId).toBe(DEFAULT_EMAIL_THEME_ID);
    expect(d.rbac.defaultPermissions).toEqual({ teamCreator: { team_admin: true }, teamMember: { team_member: true }, signUp: {} });
    expect(Object.keys(d.rbac.permissions).sort()).toEqual(["team_admin", "team_member"]);
    expect(d.payments).toEqual({ groups: {}, offers: {}, items: {} });
    expect(d.dataVault).toEqual({ stores: {} });
  });

  it("include the Vestibule additions", () => {
    expect(defaultRenderedConfig().auth.refreshTokenRotation).toBe(false);
    expect(defaultRenderedConfig().auth.accessTokenLifetimeSeconds).toBe(600);
  });

  it("are what an empty override renders to, and a fresh copy each time", () => {
    expect(renderConfig({})).toEqual(defaultRenderedConfig());
    const a = defaultRenderedConfig();
    a.auth.allowSignUp = false;
    expect(defaultRenderedConfig().auth.allowSignUp).toBe(true);
  });

  it("use Stack Auth's top-level key names in the config string", () => {
    expect(Object.keys(JSON.parse(JSON.stringify(renderConfig({}))) as object).sort()).toEqual(
      ["apiKeys", "apps", "auth", "dataVault", "domains", "emails", "onboarding", "payments", "project", "rbac", "teams", "users"].sort(),
    );
  });

  it("turn analytics on by default, and off with apps.installed.analytics.enabled (issue 13)", () => {
    expect(renderConfig({}).apps.installed.analytics).toEqual({ enabled: true });
    expect(renderConfig({ "apps.installed.analytics.enabled": false }).apps.installed.analytics).toEqual({ enabled: false });
    expect(renderConfig({ "apps.installed.analytics": null }).apps.installed.analytics).toBeUndefined();
  });

  it("render to the contract's admin view", () => {
    expect(adminConfigFromRendered(defaultRenderedConfig())).toEqual({
      allow_localhost: true,
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      allow_user_api_keys: false,
      allow_team_api_keys: false,
      oauth_providers: [],
      enabled_oauth_providers: [],
      domains: [],
      email_config: { type: "shared" },
      email_theme: DEFAULT_EMAIL_THEME_ID,
      create_team_on_sign_up: false,
      team_creator_default_permissions: [{ id: "team_admin" }],
      team_member_default_permissions: [{ id: "team_member" }],
      user_default_permissions: [],
      oauth_account_merge_strategy: "link_method",
    });
  });
});

describe("applyOverride", () => {
  it("treats dotted and nested keys alike", () => {
    const dotted = applyOverride({}, { "payments.items.credits": { displayName: "Credits", customerType: "user" } });
    const nested = applyOverride({}, { payments: { items: { credits: { displayName: "Credits", customerType: "user" } } } });
    expect(dotted).toEqual(nested);
    expect(dotted).toEqual({ payments: { items: { credits: { displayName: "Credits", customerType: "user" } } } });
  });

  it("deep-merges objects, keeping siblings", () => {
    expect(applyOverride({ a: { b: 1, c: { d: 2 } } }, { a: { c: { e: 3 } } })).toEqual({ a: { b: 1, c: { d: 2, e: 3 } } });
    expect(applyOverride({ a: { b: 1 } }, { "a.c": 2 })).toEqual({ a: { b: 1, c: 2 } });
  });

  it("lets later and deeper writes win", () => {
    expect(applyOverride({ a: { b: 1 } }, { "a.b": 2 })).toEqual({ a: { b: 2 } });
    expect(applyOverride({}, { a: { b: 1 }, "a.b": 2 })).toEqual({ a: { b: 2 } });
    expect(applyOverride({}, { "a.b": 2, a: { b: 1 } })).toEqual({ a: { b: 2 } });
  });

  it("replaces primitives and arrays", () => {
    expect(applyOverride({ a: [1, 2, 3] }, { a: [4] })).toEqual({ a: [4] });
    expect(applyOverride({ a: 1 }, { "a.b": 2 })).toEqual({ a: { b: 2 } });
    expect(applyOverride({ a: { b: 1 } }, { a: 5 })).toEqual({ a: 5 });
  });

  it("keeps null as a deletion marker", () => {
    expect(applyOverride({ a: { b: 1, c: 2 } }, { "a.b": null })).toEqual({ a: { b: null, c: 2 } });
  });

  it("null then content replaces a subtree", () => {
    const doc = applyOverride({ r: { x: true, y: true } }, { r: null, "r.z": true });
    expect(doc).toEqual({ r: null, "r.z": true });
    expect(applyOverride(doc, { "r.w": true })).toEqual({ r: null, "r.z": true, "r.w": true });
  });

  it("does not modify its inputs", () => {
    const base = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    applyOverride(base, patch);
    expect(base).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: 2 } });
  });

  it("mergeOverrides is the same function", () => {
    expect(mergeOverrides({ a: { b: 1 } }, { "a.c": 2 })).toEqual({ a: { b: 1, c: 2 } });
  });

  it("flattenOverride lists leaf paths and renders the same", () => {
    const doc = { auth: { allowSignUp: false, "oauth.accountMergeStrategy": "raise_error" }, "teams.allowClientTeamCreation": true };
    expect(flattenOverride(doc)).toEqual({
      "auth.allowSignUp": false,
      "auth.oauth.accountMergeStrategy": "raise_error",
      "teams.allowClientTeamCreation": true,
    });
    expect(renderConfig(flattenOverride(doc))).toEqual(renderConfig(doc));
  });

  it("successive config-override patches deep-merge", () => {
    const doc = fold(
      { "payments.items.credits": { displayName: "Credits", customerType: "user" } },
      { payments: { items: { seats: { displayName: "Seats", customerType: "team" } } } },
      { "payments.items.credits.displayName": "Credit" },
    );
    expect(renderConfig(doc).payments.items).toEqual({
      credits: { displayName: "Credit", customerType: "user" },
      seats: { displayName: "Seats", customerType: "team" },
    });
  });
});

describe("renderConfig", () => {
  it("applies dotted and nested keys over the defaults", () => {
    const r = renderConfig({ "auth.otp.allowSignIn": true, teams: { allowClientTeamCreation: true }, auth: { passkey: { allowSignIn: true } } });
    expect(r.auth.otp.allowSignIn).toBe(true);
    expect(r.auth.passkey.allowSignIn).toBe(true);
    expect(r.auth.password.allowSignIn).toBe(true);
    expect(r.teams).toEqual({ createPersonalTeamOnSignUp: false, allowClientTeamCreation: true });
  });

  it("null on a setting brings back its default", () => {
    const doc = fold({ "auth.allowSignUp": false, "domains.allowLocalhost": false }, { "auth.allowSignUp": null, domains: null });
    const r = renderConfig(doc);
    expect(r.auth.allowSignUp).toBe(true);
    expect(r.domains).toEqual({ allowLocalhost: true, trustedDomains: {} });
  });

  it("null on a collection empties it, defaults included", () => {
    expect(renderConfig({ "rbac.defaultPermissions.teamCreator": null }).rbac.defaultPermissions.teamCreator).toEqual({});
    expect(renderConfig({ "rbac.permissions.team_admin": null }).rbac.permissions).toHaveProperty("team_member");
    expect(renderConfig({ "rbac.permissions.team_admin": null }).rbac.permissions).not.toHaveProperty("team_admin");
  });

  it("adding to a default collection keeps the default entries", () => {
    expect(renderConfig({ "rbac.defaultPermissions.teamCreator.billing_admin": true }).rbac.defaultPermissions.teamCreator).toEqual({
      team_admin: true,
      billing_admin: true,
    });
  });

  it("fills per-entry defaults", () => {
    const r = renderConfig({
      "domains.trustedDomains.main": { baseUrl: "https://example.com" },
      "auth.oauth.providers.github": { type: "github" },
      "rbac.permissions.reader": { description: "Reads" },
    });
    expect(r.domains.trustedDomains).toEqual({ main: { baseUrl: "https://example.com", handlerPath: "/handler" } });
    expect(r.auth.oauth.providers).toEqual({ github: { type: "github", isShared: true, allowSignIn: false, allowConnectedAccounts: false } });
    expect(r.rbac.permissions.reader).toEqual({ description: "Reads", containedPermissionIds: {} });
  });

  it("keeps free-form payments and data vault content, drops unknown keys elsewhere", () => {
    const r = renderConfig({
      "payments.offers.pro": { displayName: "Pro", customerType: "user", prices: { monthly: { USD: "10", interval: [1, "month"] } } },
      "payments.testMode": true,
      "dataVault.stores.secrets": { displayName: "Secrets" },
      "auth.somethingElse": true,
      nonsense: 1,
    });
    expect(r.payments.offers.pro).toEqual({ displayName: "Pro", customerType: "user", prices: { monthly: { USD: "10", interval: [1, "month"] } } });
    expect(r.payments.testMode).toBe(true);
    expect(r.dataVault.stores).toEqual({ secrets: { displayName: "Secrets" } });
    expect(r.auth).not.toHaveProperty("somethingElse");
    expect(r).not.toHaveProperty("nonsense");
  });

  it("falls back to defaults for wrong-typed stored values", () => {
    const r = renderConfig({ "auth.allowSignUp": "yes", "auth.oauth.accountMergeStrategy": "merge_everything", "auth.accessTokenLifetimeSeconds": "600" });
    expect(r.auth.allowSignUp).toBe(true);
    expect(r.auth.oauth.accountMergeStrategy).toBe("link_method");
    expect(r.auth.accessTokenLifetimeSeconds).toBe(600);
  });

  it("keeps invalid trusted domains so the production checks can report them", () => {
    expect(renderConfig({ "domains.trustedDomains.x.baseUrl": "not a url" }).domains.trustedDomains.x).toEqual({ baseUrl: "not a url", handlerPath: "/handler" });
  });
});

describe("validateOverride", () => {
  it("accepts a good override", () => {
    expect(
      validateOverride({
        "auth.allowSignUp": false,
        auth: { oauth: { accountMergeStrategy: "raise_error", "providers.github": { type: "github", isShared: false, clientId: "a", clientSecret: "b" } } },
        "domains.trustedDomains.0": { baseUrl: "https://*.example.com", handlerPath: "/handler" },
        "emails.server": { isShared: false, host: "smtp.example.com", port: 587 },
        "rbac.defaultPermissions.signUp.$read_members": true,
        "rbac.permissions.reader": { scope: "project", containedPermissionIds: { $read_members: true } },
        "auth.accessTokenLifetimeSeconds": 300,
        "auth.refreshTokenRotation": true,
      }),
    ).toEqual([]);
  });

  it("requires a JSON object", () => {
    for (const v of [null, [], "x", 1]) expect(validateOverride(v)).toEqual(["Config override must be a JSON object"]);
  });

  it("reports values of the wrong type at known keys", () => {
    expect(validateOverride({ "auth.allowSignUp": "yes" })).toEqual(['auth.allowSignUp must be a boolean, but got string "yes"']);
    expect(validateOverride({ auth: { password: { allowSignIn: 1 } } })).toEqual(["auth.password.allowSignIn must be a boolean, but got number 1"]);
    expect(validateOverride({ "emails.selectedThemeId": 5 })).toEqual(["emails.selectedThemeId must be a string, but got number 5"]);
    expect(validateOverride({ "emails.server.port": 70000 })).toEqual(["emails.server.port must be at most 65535, but got 70000"]);
    expect(validateOverride({ "emails.server.port": 1.5 })).toEqual(["emails.server.port must be an integer, but got number 1.5"]);
    // The current SDK needs 45 s left on a fresh token (issue 13): at least 60.
    expect(validateOverride({ "auth.accessTokenLifetimeSeconds": 59 })).toEqual(["auth.accessTokenLifetimeSeconds must be at least 60, but got 59"]);
    expect(validateOverride({ "auth.accessTokenLifetimeSeconds": 60 })).toEqual([]);
    // A signed-out session's access token works until it expires: at most an hour (issue 18, SECURITY.md).
    expect(validateOverride({ "auth.accessTokenLifetimeSeconds": 3600 })).toEqual([]);
    expect(validateOverride({ "auth.accessTokenLifetimeSeconds": 3601 })).toEqual(["auth.accessTokenLifetimeSeconds must be at most 3600, but got 3601"]);
    expect(validateOverride({ "auth.oauth.accountMergeStrategy": "merge" })).toEqual([
      'auth.oauth.accountMergeStrategy must be one of link_method, raise_error, allow_duplicates, but got "merge"',
    ]);
    expect(validateOverride({ "auth.oauth.providers.gh.type": "myspace" })[0]).toMatch(/^auth\.oauth\.providers\.gh\.type must be one of google, github/);
    expect(validateOverride({ teams: "none" })).toEqual(["teams must be an object, but got string \"none\""]);
    expect(validateOverride({ "rbac.defaultPermissions.signUp.reader": false })).toEqual([
      "rbac.defaultPermissions.signUp.reader must be true (use null to remove it), but got boolean false",
    ]);
    expect(validateOverride({ "payments.items.x.customerType": "org" })[0]).toMatch(/customerType must be one of user, team, custom/);
    expect(validateOverride({ "dataVault.stores.s.displayName": 3 })).toEqual(["dataVault.stores.s.displayName must be a string, but got number 3"]);
  });

  it("checks trusted domains and handler paths", () => {
    expect(validateOverride({ "domains.trustedDomains.a.baseUrl": "example.com" })).toEqual([
      "domains.trustedDomains.a.baseUrl: Trusted domain must be an http(s) URL: example.com",
    ]);
    expect(validateOverride({ "domains.trustedDomains.a": { baseUrl: "https://x..com" } })[0]).toMatch(/two dots in a row/);
    expect(validateOverride({ "domains.trustedDomains.a.handlerPath": "handler" })).toEqual([
      "domains.trustedDomains.a.handlerPath: Handler path must start with /: handler",
    ]);
  });

  it("reports unknown keys, except in the free-form parts", () => {
    expect(validateOverride({ "auth.magic": true })).toEqual(["Unknown config key: auth.magic"]);
    expect(validateOverride({ foo: { bar: 1 } })).toEqual(["Unknown config key: foo"]);
    expect(validateOverride({ "payments.anything.goes": [1, 2] })).toEqual([]);
    expect(validateOverride({ "payments.offers.pro": { prices: { monthly: { USD: "9.99" } }, includedItems: {} } })).toEqual([]);
    expect(validateOverride({ "dataVault.stores.s": { displayName: "S", extra: { nested: true } }, "dataVault.other": 1 })).toEqual([]);
  });

  it("reports keys into values that are not objects, and malformed keys or ids", () => {
    expect(validateOverride({ "auth.allowSignUp.x": true })).toEqual(['auth.allowSignUp is not an object, so it has no key "x"']);
    expect(validateOverride({ "auth..allowSignUp": true })[0]).toMatch(/^Invalid config key "auth..allowSignUp"/);
    expect(validateOverride({ "rbac.defaultPermissions.teamCreator.Admin": true })).toEqual([
      'Invalid id "Admin" in rbac.defaultPermissions.teamCreator.Admin',
    ]);
  });

  it("accepts null anywhere (it deletes)", () => {
    expect(validateOverride({ auth: null, "emails.server.password": null, "payments.items.x": null })).toEqual([]);
  });

  it("accepts every document the admin update produces and folds", () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate), overrideFromAdminConfigUpdate({ domains: [], oauth_providers: [] }));
    expect(validateOverride(doc)).toEqual([]);
  });

  it("parseConfigOverride reports invalid JSON and invalid config", () => {
    expect(parseConfigOverride("{")).toEqual({ override: {}, problems: ["config_override_string is not valid JSON"] });
    expect(parseConfigOverride('{"auth.allowSignUp": 1}').problems).toEqual(["auth.allowSignUp must be a boolean, but got number 1"]);
    expect(parseConfigOverride('{"payments.items.x": {"displayName": "X"}}')).toEqual({
      override: { "payments.items.x": { displayName: "X" } },
      problems: [],
    });
  });
});

const fullUpdate: AdminConfigUpdate = {
  sign_up_enabled: false,
  credential_enabled: false,
  magic_link_enabled: true,
  passkey_enabled: true,
  client_team_creation_enabled: true,
  client_user_deletion_enabled: true,
  allow_localhost: false,
  allow_user_api_keys: true,
  allow_team_api_keys: true,
  email_config: {
    type: "standard",
    host: "smtp.example.com",
    port: 587,
    username: "mailer",
    password: "smtp-secret",
    sender_name: "Example",
    sender_email: "noreply@example.com",
  },
  email_theme: "a0172b5d-cff0-463b-b2b9-1f2c1e4a3e13",
  domains: [
    { domain: "https://example.com", handler_path: "/handler" },
    { domain: "https://*.app.example.com:8443", handler_path: "/auth" },
  ],
  oauth_providers: [
    { id: "google", type: "shared" },
    { id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret" },
    { id: "microsoft", type: "standard", client_id: "ms-id", client_secret: "ms-secret", microsoft_tenant_id: "tenant" },
    { id: "facebook", type: "standard", client_id: "fb-id", client_secret: "fb-secret", facebook_config_id: "fbc" },
  ],
  create_team_on_sign_up: true,
  team_creator_default_permissions: [{ id: "team_owner" }, { id: "$manage_api_keys" }],
  team_member_default_permissions: [],
  user_default_permissions: [{ id: "reader" }],
  oauth_account_merge_strategy: "allow_duplicates",
};

describe("admin view round trip", () => {
  it("shows every field of an update", () => {
    expect(adminAfter(fullUpdate)).toEqual({
      allow_localhost: false,
      sign_up_enabled: false,
      credential_enabled: false,
      magic_link_enabled: true,
      passkey_enabled: true,
      client_team_creation_enabled: true,
      client_user_deletion_enabled: true,
      allow_user_api_keys: true,
      allow_team_api_keys: true,
      oauth_providers: [
        { provider_config_id: "facebook", id: "facebook", type: "standard", client_id: "fb-id", client_secret: "fb-secret", facebook_config_id: "fbc" },
        { provider_config_id: "github", id: "github", type: "standard", client_id: "gh-id", client_secret: "gh-secret" },
        { provider_config_id: "google", id: "google", type: "shared" },
        { provider_config_id: "microsoft", id: "microsoft", type: "standard", client_id: "ms-id", client_secret: "ms-secret", microsoft_tenant_id: "tenant" },
      ],
      enabled_oauth_providers: [{ id: "facebook" }, { id: "github" }, { id: "google" }, { id: "microsoft" }],
      domains: [
        { domain: "https://*.app.example.com:8443", handler_path: "/auth" },
        { domain: "https://example.com", handler_path: "/handler" },
      ],
      email_config: {
        type: "standard",
        host: "smtp.example.com",
        port: 587,
        username: "mailer",
        password: "smtp-secret",
        sender_name: "Example",
        sender_email: "noreply@example.com",
      },
      email_theme: "a0172b5d-cff0-463b-b2b9-1f2c1e4a3e13",
      create_team_on_sign_up: true,
      team_creator_default_permissions: [{ id: "$manage_api_keys" }, { id: "team_owner" }],
      team_member_default_permissions: [],
      user_default_permissions: [{ id: "reader" }],
      oauth_account_merge_strategy: "allow_duplicates",
    });
  });

  it("writes contract fields to Stack Auth's config keys", () => {
    const r = renderConfig(overrideFromAdminConfigUpdate(fullUpdate));
    expect(r.auth.allowSignUp).toBe(false);
    expect(r.auth.password.allowSignIn).toBe(false);
    expect(r.auth.otp.allowSignIn).toBe(true);
    expect(r.auth.passkey.allowSignIn).toBe(true);
    expect(r.auth.oauth.accountMergeStrategy).toBe("allow_duplicates");
    expect(r.auth.oauth.providers.github).toEqual({
      type: "github",
      isShared: false,
      allowSignIn: true,
      allowConnectedAccounts: true,
      clientId: "gh-id",
      clientSecret: "gh-secret",
    });
    expect(r.teams).toEqual({ createPersonalTeamOnSignUp: true, allowClientTeamCreation: true });
    expect(r.users.allowClientUserDeletion).toBe(true);
    expect(r.domains.allowLocalhost).toBe(false);
    expect(Object.values(r.domains.trustedDomains)).toEqual([
      { baseUrl: "https://example.com", handlerPath: "/handler" },
      { baseUrl: "https://*.app.example.com:8443", handlerPath: "/auth" },
    ]);
    expect(r.apiKeys.enabled).toEqual({ user: true, team: true });
    expect(r.emails.server).toEqual({
      isShared: false,
      host: "smtp.example.com",
      port: 587,
      username: "mailer",
      password: "smtp-secret",
      senderName: "Example",
      senderEmail: "noreply@example.com",
    });
    expect(r.emails.selectedThemeId).toBe("a0172b5d-cff0-463b-b2b9-1f2c1e4a3e13");
    expect(r.rbac.defaultPermissions).toEqual({ teamCreator: { team_owner: true, $manage_api_keys: true }, teamMember: {}, signUp: { reader: true } });
  });

  it("an update with some fields leaves the others alone", () => {
    const admin = adminAfter(fullUpdate, { sign_up_enabled: true });
    expect(admin.sign_up_enabled).toBe(true);
    expect(admin.passkey_enabled).toBe(true);
    expect(admin.domains).toHaveLength(2);
    expect(admin.oauth_providers).toHaveLength(4);
    expect(adminAfter({})).toEqual(adminConfigFromRendered(defaultRenderedConfig()));
    expect(overrideFromAdminConfigUpdate({})).toEqual({});
  });

  it("lists replace the whole list", () => {
    const admin = adminAfter(fullUpdate, {
      domains: [{ domain: "https://new.example.com", handler_path: "/h" }],
      oauth_providers: [{ id: "spotify", type: "shared" }],
      team_creator_default_permissions: [{ id: "creator" }],
      user_default_permissions: [],
    });
    expect(admin.domains).toEqual([{ domain: "https://new.example.com", handler_path: "/h" }]);
    expect(admin.oauth_providers).toEqual([{ provider_config_id: "spotify", id: "spotify", type: "shared" }]);
    expect(admin.team_creator_default_permissions).toEqual([{ id: "creator" }]);
    expect(admin.user_default_permissions).toEqual([]);
  });

  it("a default permission list replaces the defaults too", () => {
    expect(adminAfter({ team_creator_default_permissions: [{ id: "owner" }] }).team_creator_default_permissions).toEqual([{ id: "owner" }]);
    expect(adminAfter({ team_member_default_permissions: [] }).team_member_default_permissions).toEqual([]);
  });

  it("empty lists clear", () => {
    const admin = adminAfter(fullUpdate, { domains: [], oauth_providers: [] });
    expect(admin.domains).toEqual([]);
    expect(admin.oauth_providers).toEqual([]);
    expect(admin.enabled_oauth_providers).toEqual([]);
  });

  it("a list replaced earlier can still be extended through the config override", () => {
    const doc = fold(overrideFromAdminConfigUpdate({ team_creator_default_permissions: [{ id: "owner" }] }), { "rbac.defaultPermissions.teamCreator.extra": true });
    expect(adminConfigFromRendered(renderConfig(doc)).team_creator_default_permissions).toEqual([{ id: "extra" }, { id: "owner" }]);
  });

  it("switching e-mail to shared drops the SMTP settings and secret", () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate), overrideFromAdminConfigUpdate({ email_config: { type: "shared" } }));
    expect(adminConfigFromRendered(renderConfig(doc)).email_config).toEqual({ type: "shared" });
    expect(renderConfig(doc).emails.server).toEqual({ isShared: true });
    expect(listSecretLeaves(doc).map((l) => l.path)).not.toContain("emails.server.password");
  });

  it("switching a provider to shared drops its credentials", () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate), overrideFromAdminConfigUpdate({ oauth_providers: [{ id: "github", type: "shared" }] }));
    expect(renderConfig(doc).auth.oauth.providers).toEqual({
      github: { type: "github", isShared: true, allowSignIn: true, allowConnectedAccounts: true },
    });
    expect(listSecretLeaves(doc)).toEqual([{ path: "emails.server.password", value: "smtp-secret" }]);
  });

  it("a disabled provider stays in the config but leaves the admin lists", () => {
    const doc = fold(overrideFromAdminConfigUpdate({ oauth_providers: [{ id: "github", type: "standard", client_id: "i", client_secret: "s", enabled: false }, { id: "google", type: "shared" }] }));
    const r = renderConfig(doc);
    expect(r.auth.oauth.providers.github).toMatchObject({ allowSignIn: false, allowConnectedAccounts: false, clientSecret: "s" });
    expect(adminConfigFromRendered(r).oauth_providers.map((p) => p.id)).toEqual(["google"]);
    expect(adminConfigFromRendered(r).enabled_oauth_providers).toEqual([{ id: "google" }]);
    expect(clientProjectConfig(r).enabled_oauth_providers).toEqual([{ id: "google" }]);
  });

  it("providers without a type are not shown", () => {
    const r = renderConfig({ "auth.oauth.providers.x": { allowSignIn: true } });
    expect(adminConfigFromRendered(r).oauth_providers).toEqual([]);
  });

  it("the config override endpoint and the admin update agree", () => {
    const doc = fold(overrideFromAdminConfigUpdate({ sign_up_enabled: false }), { "auth.allowSignUp": true, "teams.allowClientTeamCreation": true });
    const admin = adminConfigFromRendered(renderConfig(doc));
    expect(admin.sign_up_enabled).toBe(true);
    expect(admin.client_team_creation_enabled).toBe(true);
  });
});

describe("clientProjectConfig", () => {
  it("is the client subset", () => {
    const r = renderConfig(overrideFromAdminConfigUpdate(fullUpdate));
    expect(clientProjectConfig(r)).toEqual({
      sign_up_enabled: false,
      credential_enabled: false,
      magic_link_enabled: true,
      passkey_enabled: true,
      client_team_creation_enabled: true,
      client_user_deletion_enabled: true,
      allow_user_api_keys: true,
      allow_team_api_keys: true,
      enabled_oauth_providers: [{ id: "facebook" }, { id: "github" }, { id: "google" }, { id: "microsoft" }],
    });
  });

  it("for the defaults", () => {
    expect(clientProjectConfig(defaultRenderedConfig())).toEqual({
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: false,
      passkey_enabled: false,
      client_team_creation_enabled: false,
      client_user_deletion_enabled: false,
      allow_user_api_keys: false,
      allow_team_api_keys: false,
      enabled_oauth_providers: [],
    });
  });
});

describe("redirectTrustFromRendered", () => {
  it("lists the trusted domains and the localhost flag", () => {
    const r = renderConfig(overrideFromAdminConfigUpdate({ domains: [{ domain: "https://a.com", handler_path: "/h" }], allow_localhost: false }));
    expect(redirectTrustFromRendered(r)).toEqual({ trustedDomains: [{ baseUrl: "https://a.com" }], allowLocalhost: false });
  });
});

describe("secrets", () => {
  it("names the OAuth client secrets and the SMTP password", () => {
    expect(secretConfigPaths).toEqual(["auth.oauth.providers.*.clientSecret", "emails.server.password"]);
    expect(isSecretConfigPath("auth.oauth.providers.github.clientSecret")).toBe(true);
    expect(isSecretConfigPath("emails.server.password")).toBe(true);
    expect(isSecretConfigPath("auth.oauth.providers.github.clientId")).toBe(false);
    expect(isSecretConfigPath("auth.oauth.providers.clientSecret")).toBe(false);
    expect(isSecretConfigPath("emails.server")).toBe(false);
  });

  it("finds secret leaves in nested, dotted and mixed documents", () => {
    const doc: ConfigOverride = {
      auth: { oauth: { providers: { github: { clientSecret: "a" } } } },
      "auth.oauth.providers.google.clientSecret": "b",
      emails: { "server.password": "c", "server.host": "h" },
      "auth.oauth.providers.x": { clientId: "not secret" },
    };
    expect(listSecretLeaves(doc).sort((x, y) => x.path.localeCompare(y.path))).toEqual([
      { path: "auth.oauth.providers.github.clientSecret", value: "a" },
      { path: "auth.oauth.providers.google.clientSecret", value: "b" },
      { path: "emails.server.password", value: "c" },
    ]);
  });

  it("finds the secrets of an admin update and of a rendered config", () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate));
    const paths = listSecretLeaves(doc).map((l) => l.path).sort();
    expect(paths).toEqual([
      "auth.oauth.providers.facebook.clientSecret",
      "auth.oauth.providers.github.clientSecret",
      "auth.oauth.providers.microsoft.clientSecret",
      "emails.server.password",
    ]);
    expect(listSecretLeaves(renderConfig(doc)).map((l) => l.path).sort()).toEqual(paths);
  });

  it("maps only the secret leaves, keeping the document's shape", () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate));
    const sealed = mapSecretLeaves(doc, (v, path) => `enc(${path}:${v})`);
    expect(listSecretLeaves(sealed).find((l) => l.path === "emails.server.password")?.value).toBe("enc(emails.server.password:smtp-secret)");
    expect(renderConfig(sealed).emails.server.host).toBe("smtp.example.com");
    const opened = mapSecretLeaves(sealed, (v) => v.replace(/^enc\([^:]*:(.*)\)$/, "$1"));
    expect(opened).toEqual(doc);
  });

  it("drops the secret leaves of overrides and rendered configs, and nothing else", () => {
    const doc: ConfigOverride = {
      auth: { oauth: { providers: { github: { clientId: "gh-id", clientSecret: "a" } } } },
      "auth.oauth.providers.google.clientSecret": "b",
      "auth.oauth.providers.google.clientId": "g-id",
      emails: { "server.password": "c", "server.host": "h", server: { password: null } },
      "auth.allowSignUp": false,
    };
    expect(withoutSecretLeaves(doc)).toEqual({
      auth: { oauth: { providers: { github: { clientId: "gh-id" } } } },
      "auth.oauth.providers.google.clientId": "g-id",
      emails: { "server.host": "h", server: {} },
      "auth.allowSignUp": false,
    });
    expect(doc["auth.oauth.providers.google.clientSecret"]).toBe("b");

    const full = fold(overrideFromAdminConfigUpdate(fullUpdate));
    const rendered = renderConfig(full);
    const redacted = withoutSecretLeaves(rendered);
    expect(listSecretLeaves(redacted)).toEqual([]);
    expect(JSON.stringify(redacted)).not.toMatch(/smtp-secret|gh-secret/);
    // Everything else is as it was: putting the secrets back gives the original.
    const back = JSON.parse(JSON.stringify(redacted));
    for (const { path, value } of listSecretLeaves(rendered)) {
      const parts = path.split(".");
      parts.slice(0, -1).reduce((o, k) => o[k], back)[parts.at(-1)!] = value;
    }
    expect(back).toEqual(JSON.parse(JSON.stringify(rendered)));
    // The admin view of a redacted config has no secrets either.
    const admin = adminConfigFromRendered(renderConfig(withoutSecretLeaves(full)));
    expect(admin.email_config).not.toHaveProperty("password");
    expect(admin.email_config).toMatchObject({ type: "standard", host: "smtp.example.com" });
    for (const p of admin.oauth_providers) expect(p).not.toHaveProperty("client_secret");
    expect(admin.oauth_providers.find((p) => p.id === "github")?.client_id).toBe("gh-id");
  });

  it("has an async variant", async () => {
    const doc = fold(overrideFromAdminConfigUpdate(fullUpdate));
    const sealed = await mapSecretLeavesAsync(doc, async (v) => `x${v}`);
    expect(renderConfig(sealed).auth.oauth.providers.github?.clientSecret).toBe("xgh-secret");
    expect(renderConfig(sealed).emails.server.password).toBe("xsmtp-secret");
    expect(renderConfig(sealed).auth.oauth.providers.github?.clientId).toBe("gh-id");
  });
});

describe("validateAdminConfigUpdate", () => {
  it("accepts a full update and the seeds", () => {
    expect(validateAdminConfigUpdate(fullUpdate)).toEqual([]);
    expect(validateAdminConfigUpdate(internalProjectSeedConfig())).toEqual([]);
    expect(validateAdminConfigUpdate(demoProjectSeedConfig())).toEqual([]);
    expect(validateAdminConfigUpdate({})).toEqual([]);
  });

  it("reports problems", () => {
    expect(validateAdminConfigUpdate("x")).toEqual(["config must be an object"]);
    expect(validateAdminConfigUpdate({ bogus: 1, sign_up_enabled: "yes" })).toEqual([
      "config contains unknown properties: bogus",
      'config.sign_up_enabled must be a boolean, but got string "yes"',
    ]);
    expect(validateAdminConfigUpdate({ oauth_account_merge_strategy: "x" })[0]).toMatch(/must be one of link_method/);
    expect(validateAdminConfigUpdate({ domains: [{ domain: "example.com", handler_path: "h" }] })).toEqual([
      "config.domains[0].domain: Trusted domain must be an http(s) URL: example.com",
      "config.domains[0].handler_path must start with /",
    ]);
    expect(validateAdminConfigUpdate({ oauth_providers: [{ id: "myspace", type: "standard" }] })).toEqual([
      "config.oauth_providers[0].id must be one of google, github, microsoft, spotify, facebook, discord, gitlab, bitbucket, linkedin, apple, x, twitch",
      "config.oauth_providers[0].client_id is required for standard providers",
      "config.oauth_providers[0].client_secret is required for standard providers",
    ]);
    expect(validateAdminConfigUpdate({ oauth_providers: [{ id: "github", type: "shared" }, { id: "github", type: "shared" }] })).toEqual([
      "config.oauth_providers lists a provider twice: github",
    ]);
    expect(validateAdminConfigUpdate({ email_config: { type: "standard", port: 99999 } })).toEqual([
      "config.email_config.host is required for a standard e-mail server",
      "config.email_config.username is required for a standard e-mail server",
      "config.email_config.password is required for a standard e-mail server",
      "config.email_config.sender_name is required for a standard e-mail server",
      "config.email_config.sender_email is required for a standard e-mail server",
      "config.email_config.port must be an integer from 0 to 65535",
    ]);
    expect(validateAdminConfigUpdate({ user_default_permissions: [{ id: "Bad Id" }] })).toEqual([
      'config.user_default_permissions[0].id: Only lowercase letters, numbers, ":", "_" and optional "$" at the beginning are allowed',
    ]);
  });
});

describe("seeds", () => {
  it("the internal project", () => {
    const admin = adminConfigFromRendered(renderConfig(overrideFromAdminConfigUpdate(internalProjectSeedConfig())));
    expect(admin).toMatchObject({
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: true,
      allow_localhost: true,
      create_team_on_sign_up: true,
      client_team_creation_enabled: true,
    });
    // No OAuth providers until the OAuth flow exists (the sign-in page would offer buttons that fail).
    expect(admin.oauth_providers).toEqual([]);
  });

  it("the demo project", () => {
    const admin = adminConfigFromRendered(renderConfig(overrideFromAdminConfigUpdate(demoProjectSeedConfig())));
    expect(admin).toMatchObject({
      sign_up_enabled: true,
      credential_enabled: true,
      magic_link_enabled: true,
      allow_localhost: true,
      client_team_creation_enabled: true,
      create_team_on_sign_up: true,
      allow_user_api_keys: true,
      allow_team_api_keys: true,
    });
    expect(admin.oauth_providers).toEqual([]);
  });
});
