/** The development identity provider's login page: pick a sample identity or type one, or deny access. */

const SAMPLES = [
  { email: "ada@example.com", name: "Ada Lovelace" },
  { email: "alan@example.com", name: "Alan Turing" },
  { email: "grace@example.com", name: "Grace Hopper" },
];

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function loginPage(input: { uid: string; clientId: string; scope: string; error?: string }): string {
  const action = `/interaction/${encodeURIComponent(input.uid)}`;
  const samples = SAMPLES.map(
    (s) => `<form method="post" action="${action}/login"><input type="hidden" name="email" value="${esc(s.email)}"><input type="hidden" name="name" value="${esc(s.name)}">
      <button type="submit" class="sample">${esc(s.name)} <small>${esc(s.email)}</small></button></form>`,
  ).join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Development identity provider</title>
<style>
  body { font: 15px/1.4 system-ui, sans-serif; max-width: 26rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; }
  h1 { font-size: 1.25rem; } p.note { color: #555; font-size: .85rem; }
  button { font: inherit; padding: .5rem .75rem; border-radius: .4rem; border: 1px solid #bbb; background: #fff; cursor: pointer; width: 100%; text-align: left; margin: .25rem 0; }
  button.primary { background: #1b4dd8; color: #fff; border-color: #1b4dd8; text-align: center; }
  label { display: block; margin: .5rem 0 .2rem; } input[type=email], input[type=text] { font: inherit; width: 100%; padding: .45rem; box-sizing: border-box; }
  .error { color: #b00020; } small { color: #666; margin-left: .4rem; }
</style></head>
<body>
<h1>Development identity provider</h1>
<p class="note">Stands in for Google, GitHub and the other providers while developing. Nothing leaves this machine.${input.scope ? ` Requested scopes: <code>${esc(input.scope)}</code>.` : ""}</p>
${input.error ? `<p class="error" role="alert">${esc(input.error)}</p>` : ""}
<h2>Pick a test identity</h2>
${samples}
<h2>Or type one</h2>
<form method="post" action="${action}/login">
  <label for="email">E-mail</label><input id="email" name="email" type="email" required>
  <label for="name">Name</label><input id="name" name="name" type="text">
  <label><input type="checkbox" name="email_verified" value="false"> The provider has not verified this e-mail</label>
  <button type="submit" class="primary">Continue</button>
</form>
<form method="post" action="${action}/deny"><button type="submit">Deny access</button></form>
</body></html>`;
}
