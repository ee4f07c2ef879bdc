import { Busboy } from "@fastify/busboy";

/** PHP's `max_input_vars` default: the fields of a form body past it are not in `$_POST`. */
export const PHP_MAX_INPUT_VARS = 1000;

/**
 * Bounds on a multipart body besides its size in bytes (already capped by `bodyLimit`
 * before parsing): PHP's defaults, which the Services endpoints that enable multipart ran
 * under. Fields past `max_input_vars` and files past `max_file_uploads` are ignored, as PHP
 * ignores them.
 */
const LIMITS = { fields: PHP_MAX_INPUT_VARS, files: 20, parts: PHP_MAX_INPUT_VARS + 20, fieldNameSize: 1024, headerPairs: 16 } as const;

/**
 * The fields of a `multipart/form-data` body, as PHP puts them in `$_POST` for Services'
 * multipart parser: every part without a `filename`, decoded as UTF-8, the last of a
 * repeated name winning. File parts are read past and dropped (Services never reads
 * `$_FILES` for these calls). A body PHP could not parse (no boundary, a truncated part)
 * gives no fields at all, as `$_POST` is then empty: the call answers as for a body
 * without its arguments, never with an error of its own.
 */
export function parseMultipart(raw: Buffer, contentType: string): Promise<Record<string, string>> {
  return new Promise((resolve) => {
    const fields = new Map<string, string>();
    let parser: ReturnType<typeof Busboy>;
    try {
      parser = Busboy({
        headers: { "content-type": contentType },
        defCharset: "utf8",
        // The whole body is in memory and within bodyLimit: one field may take all of it.
        limits: { ...LIMITS, fieldSize: Math.max(1, raw.length) },
        // PHP's rule: a part is a file when it names a filename, whatever its type.
        isPartAFile: (_name, _type, fileName) => fileName !== undefined,
      });
    } catch {
      resolve({});
      return;
    }
    const unparsable = () => resolve({});
    parser.on("field", (name, value) => fields.set(name, value));
    // A truncated file part fails its own stream: an error no listener took would end the process.
    parser.on("file", (_name, stream) => stream.on("error", unparsable).resume());
    parser.on("error", unparsable);
    // A Map, then fromEntries: a field named __proto__ becomes a plain key, never the prototype.
    parser.on("finish", () => resolve(Object.fromEntries(fields)));
    try {
      parser.end(raw);
    } catch {
      unparsable();
    }
  });
}
