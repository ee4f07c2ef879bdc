import { z } from "zod";

/**
 * The schemas of the account calls' bodies and replies (docs/accounts.md), for `components.schemas`.
 *
 * @module
 */

const pass = z.union([z.string(), z.object({ pass1: z.string(), pass2: z.string() })]).meta({ description: "The password, or the form's two fields." });
const account = z
  .looseObject({
    name: z.string().max(60),
    mail: z.string().max(254),
    pass: pass.optional(),
    status: z
      .union([z.literal(0), z.literal(1), z.enum(["0", "1"])])
      .optional()
      .meta({ description: "Admins only." }),
    roles: z
      .record(z.string(), z.string())
      .optional()
      .meta({ description: 'Role ids as keys and values (`{"3": "3"}`); admins with "administer permissions" only.' }),
    notify: z.unknown().optional().meta({ description: "Any value: mail the new user the admin's welcome (admins only)." }),
  })
  .meta({ description: "Drupal's registration form's fields; or the same wrapped as `{\"account\": {…}}`." });
const update = z
  .looseObject({
    name: z.string().optional().meta({ description: 'Needs "change own username" or "administer users".' }),
    mail: z.string().optional(),
    pass: pass.optional(),
    current_pass: z.string().optional().meta({ description: "The owner's current password, to change the mail or the password without a pass-reset token." }),
    timezone: z.string().optional(),
    status: z.unknown().optional(),
    roles: z.record(z.string(), z.string()).optional(),
  })
  .meta({ description: 'The fields to change; or the same wrapped as `{"data": {…}}`.' });

/** The schemas the account paths refer to, for `components.schemas`. */
export const ACCOUNT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  AccountBody: account,
  AccountUpdate: update,
  AccountCreated: z.object({ uid: z.string(), uri: z.string().meta({ description: "The account under the endpoint." }) }),
  UserObject: z.looseObject({ uid: z.string(), name: z.string(), mail: z.string().optional(), login: z.string(), roles: z.record(z.string(), z.string()) }),
  UserRow: z
    .looseObject({ uid: z.string().optional(), uri: z.string() })
    .meta({ description: "A row of Drupal's `users` table (strings, `data` serialized), without `pass`." }),
  FormErrors: z.object({
    form_errors: z.record(z.string(), z.string()).meta({ description: "Drupal's message by form element (`name`, `mail`, `pass`, `current_pass`, …)." }),
  }),
  NameBody: z.object({ name: z.string().meta({ description: "A user name or an e-mail address." }) }),
  PassResetBody: z.object({ uid: z.union([z.string(), z.number()]), timestamp: z.union([z.string(), z.number()]), hashed_pass: z.string() }),
  PassResetReply: z.object({
    pass_reset_token: z.string().meta({ description: "Send it as `?pass-reset-token=` with `PUT user/{uid}` to set a password without the current one." }),
    message: z.string(),
  }),
  Done: z.tuple([z.boolean()]),
};
