import { checkCommand } from "./check-command.js";
import { importSessionsCommand } from "./import-sessions.js";
import { redact } from "./redact.js";
import { secretCommand } from "./secret.js";
import { sessionNameCommand } from "./session-name-command.js";
import { UsageError, USAGE, type Io } from "./usage.js";

/** Runs one command line and resolves its exit code (0 done, 1 failed, 2 bad usage), writing only to `io`. */
export async function run(argv: readonly string[], io: Io): Promise<number> {
  const [command, ...rest] = argv;
  // Everything that could hold a credential, so that no message repeats it.
  const secrets: string[] = [];
  try {
    switch (command) {
      case "secret":
        secretCommand(rest, io);
        return 0;
      case "session-name":
        sessionNameCommand(rest, io);
        return 0;
      case "drupal7":
        if (rest[0] === "import-sessions") {
          await importSessionsCommand(rest.slice(1), io, secrets);
          return 0;
        }
        if (rest[0] === "check") return await checkCommand(rest.slice(1), io, secrets);
        throw new UsageError(rest[0] === undefined ? "drupal7: which command? (check, import-sessions)" : `drupal7: unknown command ${rest[0]}`);
      case "help":
      case "--help":
      case "-h":
        io.stdout.write(USAGE);
        return 0;
      default:
        throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${command}`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`services-session-auth: ${redact(error.message, secrets)}\n\n${USAGE}`);
      return 2;
    }
    io.stderr.write(`services-session-auth: ${redact(messageOf(error), secrets)}\n`);
    return 1;
  }
}

/** The message of anything thrown, without its stack: Node's connection errors may be an AggregateError with an empty message. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.map(messageOf).join("; ");
  const code = (error as { code?: unknown }).code;
  if (error.message !== "") return error.message;
  return typeof code === "string" ? code : error.name;
}
