/** Unsigned JWTs with the contract's claims, for tests of code that only decodes tokens. */
export function fakeAccessToken(overrides: Record<string, unknown> = {}, expiresInSeconds: number | null = 600): string {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    sub: "8d7c1c3e-6a0b-4f7e-9a53-1d2f0b3c4d5e",
    iss: "http://localhost:8102/api/v1/projects/p1",
    aud: "p1",
    iat: now,
    project_id: "p1",
    branch_id: "main",
    refresh_token_id: "0f5e2d0c-1111-4222-8333-944455556666",
    role: "authenticated",
    name: "Ada Lovelace",
    email: "ada@example.com",
    email_verified: true,
    selected_team_id: null,
    is_anonymous: false,
    ...overrides,
  };
  if (expiresInSeconds !== null) claims.exp = now + expiresInSeconds;
  const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${enc({ alg: "ES256", kid: "abcdefghijkl" })}.${enc(claims)}.c2lnbmF0dXJl`;
}
