/**
 * E-mail facts more than one service needs, without domain knowledge: the one address normalisation and the sealed
 * e-mail requester every producer of `<producer>.email.requested.v1` uses (the e-mail service opens what it seals).
 */
export { normalizeEmail } from "./address.ts";
export { EmailRequester, SEALED_EMAIL_FIELDS, type EmailRequest } from "./requester.ts";
