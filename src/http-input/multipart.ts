import { Busboy } from "@fastify/busboy";

/** PHP's `max_input_vars` default: the fields of a form body past it are not in `$_POST`. */
export const PHP_MAX_INPUT_VARS = 1000;

/** Bounds besides the byte size (`bodyLimit`): PHP's defaults; fields and files past them are ignored, as PHP does. */
const LIMITS = { fields: PHP_MAX_INPUT_VARS, files: 20, parts: PHP_MAX_INPUT_VARS + 20, fieldNameSize: 1024, headerPairs: 16 } as const;

/** A multipart body's non-file fields as PHP fills `$_POST`; an unparseable body gives none, as in PHP. */
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
