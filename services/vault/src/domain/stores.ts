/**
 * Which data-vault stores a project declares: `dataVault.stores.<storeId>` in its rendered configuration (identity's
 * `rendered_config_json`). Pure functions, no I/O.
 */
export function declaredStores(renderedConfigJson: string): ReadonlySet<string> {
  let rendered: unknown;
  try {
    rendered = JSON.parse(renderedConfigJson || "{}");
  } catch {
    return new Set();
  }
  const dataVault = isObject(rendered) ? rendered.dataVault : undefined;
  const stores = isObject(dataVault) ? dataVault.stores : undefined;
  if (!isObject(stores)) return new Set();
  return new Set(Object.entries(stores).filter(([, v]) => isObject(v)).map(([k]) => k));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
