import { loginUserObject } from "../../wire/user-object.js";
import { jsonReply, type WireResponse } from "../../wire/reply.js";
import type { UserListCondition, UserListRow, UserRecord } from "../../types.js";
import type { AccountCall } from "../account-call.js";
import { parsePhpInput, type PhpInputArray } from "../php-input.js";
import { servicesError } from "../replies.js";
import { isUsersColumn } from "../users-table.js";

/**
 * `_user_resource_retrieve()`'s account as `user_load()` gives it (every column a string, `login`
 * too) after `services_remove_user_data()`: no `pass`; `mail` only for its owner or an admin; `init`
 * only for an admin; with user pictures on, no picture is `null`.
 */
export function retrievedUserObject(
  user: UserRecord,
  viewer: { readonly admin: boolean; readonly uid: string },
  userPictures: boolean,
): Record<string, unknown> {
  const out = loginUserObject(user, user.login, viewer.admin);
  out.login = String(user.login);
  if (!viewer.admin && user.uid !== viewer.uid) delete out.mail;
  if (userPictures && (out.picture === "0" || out.picture === 0)) out.picture = null;
  return out;
}

/** `GET user/{uid}`: the account, to its owner, an admin, or anyone with "access user profiles" when it is active. */
export async function retrieveUser(call: AccountCall, uid: string): Promise<WireResponse> {
  const account = await call.load(uid);
  if (account === null) return call.noSuchUser(uid);
  const admin = await call.can("administer users");
  // user_view_access().
  const allowed = call.callerUid === account.uid || admin || ((await call.can("access user profiles")) && account.active);
  if (!allowed) return call.accessDenied();
  return jsonReply(retrievedUserObject(account, { admin, uid: call.callerUid }, call.settings.userPictures));
}

/** The query arguments of the index, with Services' defaults. */
interface IndexArguments {
  readonly page: unknown;
  readonly fields: unknown;
  readonly parameters: unknown;
  readonly pagesize: unknown;
  readonly options: unknown;
}

const OPERATORS: ReadonlySet<string> = new Set(["IN", "NOT IN", "=", "<>", "!=", "<", "<=", ">", ">=", "LIKE", "NOT LIKE"]);

/** Drupal's 406 when the index query fails, with the message MySQL gives an unknown column. */
function invalidQuery(detail: string): WireResponse {
  return servicesError(406, `Invalid query provided, double check that the fields and parameters you defined are correct and exist. ${detail}`);
}

function unknownColumn(column: string, clause: string): WireResponse {
  return invalidQuery(`SQLSTATE[42S22]: Column not found: 1054 Unknown column '${column}' in '${clause}'`);
}

/** A non-negative integer as PHP reads a numeric query value, or undefined. */
function whole(value: unknown): number | undefined {
  if (typeof value !== "string" || !/^\d{1,9}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** `str_getcsv($value)`: comma-separated, `"…"` quoting with `""` inside. */
function csv(value: string): string[] {
  const out: string[] = [];
  let field = "";
  let quoted = false;
  let started = false;
  for (let i = 0; i < value.length; i++) {
    const char = value[i]!;
    if (quoted) {
      if (char === '"' && value[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && !started) {
      quoted = true;
      started = true;
    } else if (char === ",") {
      out.push(field);
      field = "";
      started = false;
    } else {
      field += char;
      started = true;
    }
  }
  out.push(field);
  return out;
}

/** `GET user`: rows of the `users` table (`_user_resource_index()`), for those with "access user profiles". */
export async function indexUsers(call: AccountCall): Promise<WireResponse> {
  const { users } = call.deps;
  if (!(await call.can("access user profiles"))) return call.accessDenied();
  const query: PhpInputArray = parsePhpInput(call.request.query);
  const args: IndexArguments = {
    page: query.page ?? "0",
    fields: query.fields ?? "*",
    parameters: query.parameters ?? {},
    pagesize: query.pagesize ?? String(call.settings.indexPageSize),
    options: query.options ?? { orderby: { created: "DESC" } },
  };
  const page = whole(args.page);
  let size = whole(args.pagesize);
  if (page === undefined || size === undefined) return invalidQuery("The page and pagesize must be whole numbers.");
  if (size > call.settings.indexPageSize && !(await call.can("perform unlimited index queries"))) size = call.settings.indexPageSize;

  const fields = args.fields === "*" ? [] : typeof args.fields === "string" ? args.fields.split(",") : undefined;
  if (fields === undefined) return invalidQuery("The fields must be a comma-separated list.");
  for (const field of fields) if (!isUsersColumn(field)) return unknownColumn(`t.${field}`, "field list");

  const options = typeof args.options === "object" && args.options !== null ? (args.options as PhpInputArray) : {};
  const ops = typeof options.parameters_op === "object" && options.parameters_op !== null ? (options.parameters_op as PhpInputArray) : {};
  const conditions: UserListCondition[] = [];
  if (typeof args.parameters === "object" && args.parameters !== null) {
    for (const [column, value] of Object.entries(args.parameters as PhpInputArray)) {
      if (!isUsersColumn(column)) return unknownColumn(column, "where clause");
      if (typeof value !== "string") return invalidQuery(`The parameter ${column} must be a value.`);
      const asked = typeof ops[column] === "string" ? (ops[column] as string).trim().toUpperCase() : "IN";
      const operator = asked === "!=" ? "<>" : asked;
      if (!OPERATORS.has(operator)) return invalidQuery(`The operator ${asked} is not served.`);
      conditions.push({ column, operator: operator as UserListCondition["operator"], values: csv(value) });
    }
  }
  const orderBy: Array<{ column: string; direction: "ASC" | "DESC" }> = [];
  if (typeof options.orderby === "object" && options.orderby !== null) {
    for (const [raw, direction] of Object.entries(options.orderby as PhpInputArray)) {
      // db_escape_field(): only letters, digits, _ and . are kept.
      const column = raw.replace(/[^\w.]+/g, "").replace(/^t\./, "");
      if (!isUsersColumn(column)) return unknownColumn(column, "order clause");
      orderBy.push({ column, direction: typeof direction === "string" && direction.toUpperCase() === "DESC" ? "DESC" : "ASC" });
    }
  }

  const rows = await users.listUsers!({ fields, conditions, orderBy, offset: page * size, limit: size });
  const admin = await call.can("administer users");
  return jsonReply(rows.map((row) => indexItem(row, call, admin)));
}

/** `services_resource_build_index_list()` for one row: its `uri` added, then `services_remove_user_data()`. */
function indexItem(row: UserListRow, call: AccountCall, admin: boolean): Record<string, unknown> {
  const item: Record<string, unknown> = { ...row, uri: call.uri(row.uid ?? "") };
  delete item.pass;
  if (!admin && row.uid !== undefined && row.uid !== call.callerUid) delete item.mail;
  if (!admin) delete item.init;
  return item;
}
